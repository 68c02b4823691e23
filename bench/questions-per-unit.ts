// `node bench/questions-per-unit.ts`: issue 28, item 11. DNS questions a /mail or /blacklist call asks
// (counted by the fake DNS server on loopback, the service's DNS cache off so every question reaches
// it) against the requests it costs (the fall of X-RateLimit-Remaining, the next request included,
// minus that one). Baseline in the same run: the app of BASELINE_TREE (a checkout of the code
// before the change, e.g. `git worktree add ../before 139214f`), then this tree's.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type FakeReply, startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { baselineAndThisTree } from './baseline-tree.ts';

type Answer = NonNullable<FakeReply['answers']>[number];

const TREES = baselineAndThisTree();

const record = (name: string, type: string, data: unknown): Answer =>
  ({ name, type, ttl: 300, class: 'IN', data }) as Answer;
const mxHosts = (domain: string, count: number) =>
  Array.from({ length: count }, (_, index) =>
    record(domain, 'MX', { preference: index, exchange: `mx${index}.${domain}` }),
  );

// typical.test: two MX hosts, an SPF include, DMARC, a DKIM key, MTA-STS and TLS-RPT.
// worst.test: ten MX hosts and an SPF record of nine mx: mechanisms whose domains have ten MX hosts
// each: far past the check's cap of 100 questions.
const zone: Record<string, Answer[]> = {
  'typical.test MX': mxHosts('typical.test', 2),
  'typical.test TXT': [record('typical.test', 'TXT', ['v=spf1 include:_spf.provider.test -all'])],
  '_spf.provider.test TXT': [record('_spf.provider.test', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all'])],
  '_dmarc.typical.test TXT': [record('_dmarc.typical.test', 'TXT', ['v=DMARC1; p=reject'])],
  's1._domainkey.typical.test TXT': [record('s1._domainkey.typical.test', 'TXT', ['v=DKIM1; k=rsa; p=MIIB'])],
  '_mta-sts.typical.test TXT': [record('_mta-sts.typical.test', 'TXT', ['v=STSv1; id=1'])],
  '_smtp._tls.typical.test TXT': [record('_smtp._tls.typical.test', 'TXT', ['v=TLSRPTv1; rua=mailto:r@typical.test'])],
  'worst.test MX': mxHosts('worst.test', 10),
  'worst.test TXT': [
    record('worst.test', 'TXT', [
      `v=spf1 ${Array.from({ length: 9 }, (_, index) => `mx:m${index}.worst.test`).join(' ')} -all`,
    ]),
  ],
};
for (let index = 0; index < 9; index++) zone[`m${index}.worst.test MX`] = mxHosts(`m${index}.worst.test`, 10);

const dns = await startFakeDnsServer((question): FakeReply => {
  const answers = zone[`${question.name.toLowerCase()} ${question.type}`];
  if (answers) return { answers };
  if (question.type === 'A' && /^mx\d\./.test(question.name))
    return { answers: [record(question.name, 'A', '192.0.2.25')] };
  return { answers: [] };
});

const CALLS = [
  { name: '/mail typical (2 MX, SPF include, DKIM)', url: '/api/v1/mail?domain=typical.test&dkim_selector=s1' },
  { name: '/mail worst case (capped at 100)', url: '/api/v1/mail?domain=worst.test' },
  { name: '/mail refused (400)', url: '/api/v1/mail?domain=192.0.2.1' },
  { name: '/blacklist, default 8 lists', url: '/api/v1/blacklist?ip=192.0.2.10' },
  { name: '/blacklist, same IP again (cached report)', url: '/api/v1/blacklist?ip=192.0.2.10' },
];

const rows: Record<string, Record<string, string | number>> = {};
try {
  for (const tree of TREES) {
    const { buildTestApp } = (await import(path.join(tree.root, 'test/support/app.ts'))) as {
      buildTestApp: (env: Record<string, string>) => Promise<FastifyInstance>;
    };
    const app = await buildTestApp({
      DNS_SERVERS: `127.0.0.1:${dns.server.port}`,
      DNS_CACHE_ENTRIES: '0',
      RATE_LIMITS: 'public=100000/1000000',
    });
    try {
      const remaining = async () =>
        Number((await app.inject({ url: '/api/v1/ipv6' })).headers['x-ratelimit-remaining']);
      let before = await remaining();
      for (const call of CALLS) {
        const asked = dns.queries.length;
        const response = await app.inject({ url: call.url });
        const questions = dns.queries.length - asked;
        // What the call cost: the fall of the remaining count, measured by a request after it (minus that one).
        const after = await remaining();
        const cost = before - after - 1;
        before = after;
        const row = rows[call.name] ?? {};
        rows[call.name] = row;
        row[`${tree.name}: status`] = response.statusCode;
        row[`${tree.name}: questions`] = questions;
        row[`${tree.name}: requests`] = cost;
        row[`${tree.name}: questions/request`] = Number((questions / cost).toFixed(1));
      }
    } finally {
      await app.close();
    }
  }
} finally {
  await dns.close();
}
console.table(rows);
