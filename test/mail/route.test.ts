import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DnsRecord } from '../../src/dns/records.ts';
import type { Resolver } from '../../src/dns/resolver.ts';
import { QUESTIONS_PER_UNIT } from '../../src/limits/upstream-cost.ts';
import { createMailChecker } from '../../src/mail/checker.ts';
import { MAX_QUERIES_PER_CHECK } from '../../src/mail/tool.ts';
import { buildTestApp } from '../support/app.ts';

/** A resolver answering TXT and MX from a table (other names: no records), counting every query. */
function tableResolver(txt: Record<string, string[]>, mx: Record<string, string[]> = {}) {
  const asked: string[] = [];
  const resolver: Resolver = {
    async query(name, type) {
      asked.push(`${name} ${type}`);
      const base = { name, ttl: 300, class: 'IN' };
      const answers: DnsRecord[] =
        type === 'TXT'
          ? (txt[name] ?? []).map((text) => ({ ...base, type: 'TXT', data: [text] }))
          : type === 'MX'
            ? (mx[name] ?? []).map((exchange, index) => ({
                ...base,
                type: 'MX',
                data: { preference: index, exchange },
              }))
            : [];
      return { rcode: 'NOERROR', answers, authority: [], server: 'table', fromCache: false };
    },
    resolveAddresses: async () => [],
    reverse: async () => null,
  };
  return { resolver, asked };
}

describe('/api/v1/mail input', () => {
  const cases: Array<[string, RegExp]> = [
    ['', /Missing required query parameter|domain/],
    ['domain=', /'domain': must be a domain name \(host name is empty\)/],
    ['domain=192.0.2.1', /'domain': is an IP address; give a mail domain/],
    ['domain=exa%20mple.com', /'domain': must be a domain name \(host name contains white space\)/],
    ['domain=example.com/x', /'domain': must be a domain name/],
    ['domain=.', /'domain': must be a domain name, not the root/],
    [`domain=${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`, /'domain': is too long/],
    ['domain=example.com&dkim_selector=', /'dkim_selector': must be a DKIM selector/],
    ['domain=example.com&dkim_selector=a..b', /'dkim_selector': must be a DKIM selector/],
    ['domain=example.com&dkim_selector=s1%2Fx', /'dkim_selector': must be a DKIM selector/],
    ['domain=example.com&dkim_selector=-s1', /'dkim_selector': must be a DKIM selector/],
    [
      `domain=${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.com&dkim_selector=${'s'.repeat(60)}`,
      /longer than 253/,
    ],
    ['domain=example.com&selector=s1', /Unknown query parameter 'selector'/],
  ];
  for (const [query, message] of cases) {
    it(`400 for ?${query.slice(0, 60)}`, async () => {
      const { resolver, asked } = tableResolver({});
      const app = await buildTestApp({}, { resolver });
      const response = await app.inject({ url: `/api/v1/mail?${query}` });
      await app.close();
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().error, message);
      assert.deepEqual(asked, [], 'nothing is asked for bad input');
    });
  }

  it('accepts an IDN domain and a dotted selector with an underscore, in punycode and lower case', async () => {
    const { resolver, asked } = tableResolver({});
    const app = await buildTestApp({}, { resolver });
    const response = await app.inject({
      url: `/api/v1/mail?domain=${encodeURIComponent('Bücher.example')}&dkim_selector=S1.mail_a`,
    });
    await app.close();
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().domain, 'xn--bcher-kva.example');
    assert.ok(asked.includes('s1.mail_a._domainkey.xn--bcher-kva.example TXT'));
  });
});

describe('/api/v1/mail limits', () => {
  // Ten MX hosts (A and AAAA each) on top of the five fixed questions: 25 questions, 3 requests.
  const manyHosts = () =>
    tableResolver({}, { 'example.com': Array.from({ length: 10 }, (_, index) => `mx${index}.example.com`) });

  it(`counts one request per ${QUESTIONS_PER_UNIT} DNS questions asked, settled when the call ends (issue 28, item 11)`, async () => {
    const { resolver, asked } = manyHosts();
    const app = await buildTestApp({ RATE_LIMITS: 'public=100/500' }, { resolver });
    const small = await app.inject({ url: '/api/v1/mail?domain=small.example' });
    const fewAsked = asked.length;
    const mail = await app.inject({ url: '/api/v1/mail?domain=example.com' });
    const next = await app.inject({ url: '/api/v1/ipv6' });
    await app.close();
    assert.equal(fewAsked, 5);
    assert.equal(small.headers['x-ratelimit-remaining'], '99', 'five questions cost the minimum, 1');
    assert.equal(asked.length - fewAsked, 25);
    assert.equal(mail.statusCode, 200);
    assert.equal(mail.headers['x-ratelimit-remaining'], String(99 - 3), 'the answer already carries the settled cost');
    assert.equal(next.headers['x-ratelimit-remaining'], String(99 - 3 - 1));
  });

  it('never refuses a call midway: the last request left runs in full, and the next one is refused', async () => {
    const { resolver, asked } = manyHosts();
    const app = await buildTestApp({ RATE_LIMITS: 'public=2/500' }, { resolver });
    const mail = await app.inject({ url: '/api/v1/mail?domain=example.com' });
    const next = await app.inject({ url: '/api/v1/ipv6' });
    await app.close();
    assert.equal(mail.statusCode, 200);
    assert.equal(mail.json().mx.records.length, 10);
    assert.equal(asked.length, 25, 'every question was asked');
    assert.equal(mail.headers['x-ratelimit-remaining'], '0');
    assert.equal(next.statusCode, 429);
  });

  it('counts a request refused for its domain or selector as 1: it asks nothing', async () => {
    const { resolver } = tableResolver({});
    const app = await buildTestApp({ RATE_LIMITS: 'public=100/500' }, { resolver });
    const remaining: string[] = [];
    for (const query of ['', 'domain=192.0.2.1', 'domain=example.com&dkim_selector=a..b', 'domain=a&domain=b']) {
      const response = await app.inject({ url: `/api/v1/mail?${query}` });
      assert.equal(response.statusCode, 400, query);
      remaining.push(String(response.headers['x-ratelimit-remaining']));
    }
    await app.close();
    assert.deepEqual(remaining, ['99', '98', '97', '96']);
  });

  it(`asks at most ${MAX_QUERIES_PER_CHECK} DNS questions, however the SPF record is built, and says it stopped`, async () => {
    // 10 mx mechanisms, each naming 10 hosts: 10 x (1 + 20) = 210 questions without the cap.
    const spf = `v=spf1 ${Array.from({ length: 10 }, (_, index) => `mx:m${index}.example.com`).join(' ')} -all`;
    const mx = Object.fromEntries(
      Array.from({ length: 10 }, (_, index) => [
        `m${index}.example.com`,
        Array.from({ length: 10 }, (_, host) => `h${host}.m${index}.example.com`),
      ]),
    );
    const { resolver, asked } = tableResolver({ 'example.com': [spf] }, mx);
    const app = await buildTestApp({}, { resolver });
    const response = await app.inject({ url: '/api/v1/mail?domain=example.com' });
    await app.close();
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(asked.length, MAX_QUERIES_PER_CHECK);
    const report = response.json();
    assert.match(report.problems.join(), new RegExp(`stopped asking after ${MAX_QUERIES_PER_CHECK} DNS queries`));
    assert.match(report.spf.problems.join('\n'), /was not asked: the check's limit of 100 DNS queries was reached/);
  });

  it('regression: an SPF include naming an invalid query name is a problem, not a 500', async () => {
    const { resolver } = tableResolver({ 'example.com': ['v=spf1 include:a*b.example.com -all'] });
    // The table resolver accepts any name; the real one refuses this with a RangeError.
    const strict: Resolver = {
      ...resolver,
      query: async (name, type, options) => {
        if (name.includes('*')) throw new RangeError('host name has the character "*"');
        return resolver.query(name, type, options);
      },
    };
    const app = await buildTestApp({}, { resolver: strict });
    const response = await app.inject({ url: '/api/v1/mail?domain=example.com' });
    await app.close();
    assert.equal(response.statusCode, 200, response.body);
    assert.match(
      response.json().spf.problems.join(),
      /a\*b\.example\.com cannot be looked up: host name has the character/,
    );
  });

  it('502 naming the lookup when no DNS server answers', async () => {
    // DNS_SERVERS is a closed loopback port in tests: every lookup fails at once.
    const app = await buildTestApp({ DNS_TIMEOUT_MS: '200' });
    const response = await app.inject({ url: '/api/v1/mail?domain=example.com&dkim_selector=s1' });
    await app.close();
    assert.equal(response.statusCode, 502, response.body);
    assert.match(response.json().error, /^DNS lookup of example\.com MX failed: the DNS servers could not be reached/);
  });
});

describe('/api/v1/mail in the OpenAPI document', () => {
  it('is documented with the cost and the query bound', async () => {
    const app = await buildTestApp();
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    await app.close();
    const operation = document.paths['/api/v1/mail'].get;
    assert.match(operation.description, new RegExp(`at most ${MAX_QUERIES_PER_CHECK} DNS questions`));
    assert.match(
      operation.description,
      new RegExp(`one request per ${QUESTIONS_PER_UNIT} questions, rounded up, at least 1`),
    );
    assert.deepEqual(operation.parameters.map((parameter: { name: string }) => parameter.name).sort(), [
      'dkim_selector',
      'domain',
    ]);
  });
});

describe('the check time limit', () => {
  it('stops waiting for a lookup still out at the limit and says which one, rather than holding the answer', async () => {
    const { resolver: table } = tableResolver({ 'example.com': ['v=spf1 include:slow.example.net -all'] });
    // slow.example.net's server never answers (the resolver's own deadline is longer than the check's).
    const resolver: Resolver = {
      ...table,
      query: (name, type, options) =>
        name === 'slow.example.net' ? new Promise(() => {}) : table.query(name, type, options),
    };
    const started = performance.now();
    const report = await createMailChecker(resolver, 200).check('example.com', null);
    const took = performance.now() - started;
    assert.ok(took >= 190 && took < 5_000, String(took));
    assert.equal(report.exists, true);
    assert.equal(report.spf.found, true);
    assert.ok(
      report.spf.problems.some((problem) =>
        /slow\.example\.net TXT got no answer within the check's time limit of 200 ms/.test(problem),
      ),
      JSON.stringify(report.spf.problems),
    );
    assert.ok(
      report.problems.some((problem) => /time limit of 200 ms/.test(problem)),
      JSON.stringify(report.problems),
    );
  });
});
