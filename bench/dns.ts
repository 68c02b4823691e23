// `npm run bench:dns`: what /api/v1/dns adds over asking the DNS server directly. Against a real
// DNS server on loopback (Knot, when installed; else the in-process fake), interleaved rounds of:
// a direct UDP query as dig sends it (the baseline), the uncached API call, and the cached API call.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { type DnsServer, formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { recordsHandler, startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { findKnotd, startRealDnsServer } from '../test/support/real-dns-server.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const NAME = 'www.netinfo.test';

async function startServer(): Promise<{ server: DnsServer; kind: string; stop: () => Promise<void> }> {
  if (findKnotd()) {
    const real = await startRealDnsServer();
    return { server: real.server, kind: 'Knot DNS', stop: () => real.stop() };
  }
  const fake = await startFakeDnsServer(
    recordsHandler([{ type: 'A', name: NAME, ttl: 300, class: 'IN', data: '192.0.2.20' }], 'netinfo.test'),
  );
  return { server: fake.server, kind: 'in-process fake (install knot for a real server)', stop: () => fake.close() };
}

/** One query the way dig sends it: a fresh UDP socket, EDNS0, wait for the reply. */
function directQuery(server: DnsServer, id: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const query = dnsPacket.encode({
      type: 'query',
      id,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'A', name: NAME, class: 'IN' }],
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 1232,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ],
    });
    socket.once('message', () => {
      socket.close();
      resolve();
    });
    socket.once('error', reject);
    socket.send(query, server.port, server.host);
  });
}

const dns = await startServer();
const apps = {
  uncached: await buildTestApp({
    DNS_SERVERS: formatServer(dns.server),
    DNS_CACHE_ENTRIES: '0',
    RATE_LIMITS: 'public=100000000/100000000',
  }),
  cached: await buildTestApp({ DNS_SERVERS: formatServer(dns.server), RATE_LIMITS: 'public=100000000/100000000' }),
};
const urls: Record<string, string> = {};
for (const [name, app] of Object.entries(apps)) {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  urls[name] =
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/dns?host=${NAME}&record_type=A`;
}

const timings: Record<'direct' | 'uncached' | 'cached', number[]> = { direct: [], uncached: [], cached: [] };
async function timed(key: keyof typeof timings, work: () => Promise<unknown>, keep: boolean) {
  const started = performance.now();
  await work();
  if (keep) timings[key].push(performance.now() - started);
}
for (let round = -50; round < ROUNDS; round++) {
  const keep = round >= 0; // the first 50 rounds warm up JIT, sockets and caches
  await timed('direct', () => directQuery(dns.server, (round + 100) & 0xffff), keep);
  await timed('uncached', async () => (await fetch(urls.uncached ?? '')).arrayBuffer(), keep);
  await timed('cached', async () => (await fetch(urls.cached ?? '')).arrayBuffer(), keep);
}

let digQueryTime = 'dig not installed';
try {
  const out = execFileSync('dig', [`@${dns.server.host}`, '-p', String(dns.server.port), NAME, 'A'], {
    encoding: 'utf8',
  });
  digQueryTime = /Query time: (\d+ \S+)/.exec(out)?.[1] ?? 'unknown';
} catch {}

const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;
const row = (values: number[]) => ({
  'median ms': quantile(values, 0.5).toFixed(3),
  'p99 ms': quantile(values, 0.99).toFixed(3),
});
console.log(
  `dns: ${NAME} A against ${dns.kind}, ${ROUNDS} interleaved rounds (dig itself reports "Query time: ${digQueryTime}")`,
);
console.table({
  'direct UDP query (dig-equivalent)': row(timings.direct),
  '/api/v1/dns uncached': row(timings.uncached),
  '/api/v1/dns cached': row(timings.cached),
});
const added = quantile(timings.uncached, 0.5) - quantile(timings.direct, 0.5);
console.log(
  `added over the direct query at the median: ${added.toFixed(3)} ms (target < 1 ms): ${added < 1 ? 'met' : 'NOT met'}`,
);
for (const app of Object.values(apps)) await app.close();
await dns.stop();
process.exitCode = added < 1 ? 0 : 1;
