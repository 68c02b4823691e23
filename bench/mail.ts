// `npm run bench:mail`: /api/v1/mail against Knot DNS on loopback serving test/fixtures/dns/mail.test.zone
// (needs the Debian package knot). Two domains: good.mail.test (MX with addresses, an SPF include,
// DMARC, a DKIM key, MTA-STS, TLS-RPT) and ten.mail.test (an SPF chain of exactly 10 lookups).
//   warm: the service's DNS cache holds every answer (target: median under 5 ms);
//   cold: the service's DNS cache emptied before every call, so every call asks the server again;
//   cold, +20 ms a query: the same through a UDP relay that holds every query 20 ms; the relay
//   notes when each query arrives, and queries arriving together (within 10 ms of the first of
//   their wave) are one round trip, so the waves counted are the sequential round trips of a call.
// The baseline, in the same run, is one direct query to the same server (what one round trip costs).
import dgram from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMemoryDnsCache, type DnsCache, noDnsCache } from '../src/dns/cache.ts';
import { createResolver } from '../src/dns/resolver.ts';
import { type DnsServer, formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { findKnotd, startRealDnsServer } from '../test/support/real-dns-server.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const DELAY_MS = 20;
const CHECKS = [
  { name: 'good.mail.test', query: 'domain=good.mail.test&dkim_selector=s2048' },
  { name: 'ten.mail.test', query: 'domain=ten.mail.test' },
];

if (!findKnotd()) {
  console.error('bench:mail needs knotd (apt-get install knot)');
  process.exit(2);
}
const real = await startRealDnsServer(['mail.test']);

/** A UDP relay on loopback that forwards each query to `upstream` after `delayMs`, noting arrivals. */
async function startDelayingRelay(upstream: DnsServer, delayMs: number) {
  const arrivals: number[] = [];
  const front = dgram.createSocket('udp4');
  front.on('message', (query, client) => {
    arrivals.push(performance.now());
    const back = dgram.createSocket('udp4');
    back.on('message', (reply) => {
      front.send(reply, client.port, client.address);
      back.close();
    });
    setTimeout(() => back.send(query, upstream.port, upstream.host), delayMs);
  });
  await new Promise<void>((resolve) => front.bind(0, '127.0.0.1', resolve));
  return { server: { host: '127.0.0.1', port: front.address().port }, arrivals, close: () => front.close() };
}
const relay = await startDelayingRelay(real.server, DELAY_MS);

/** The service's in-process DNS cache, emptied on demand (a cold start for each measured call). */
function emptiableCache(): DnsCache & { empty(): void } {
  let inner = createMemoryDnsCache();
  return {
    get: (key) => inner.get(key),
    set: (key, answer) => inner.set(key, answer),
    empty: () => {
      inner = createMemoryDnsCache();
    },
  };
}
const coldCache = emptiableCache();
const delayedCache = emptiableCache();

async function listening(server: DnsServer, cache?: DnsCache) {
  const resolver = cache ? createResolver({ servers: [server], cache, timeoutMs: 1000, deadlineMs: 3000 }) : undefined;
  const app = await buildTestApp(
    { RATE_LIMITS: 'public=100000000/100000000', DNS_SERVERS: formatServer(server) },
    resolver ? { resolver } : {},
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { app, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}
const apps = {
  warm: await listening(real.server),
  cold: await listening(real.server, coldCache),
  delayed: await listening(relay.server, delayedCache),
};

async function call(base: string, query: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}/api/v1/mail?${query}`);
  const body = (await response.json()) as { exists?: boolean; spf?: { lookups: number; problems: string[] } };
  const elapsed = performance.now() - started;
  if (response.status !== 200 || body.exists !== true || (body.spf?.problems.length ?? 1) !== 0) {
    throw new Error(`unexpected answer: ${response.status} ${JSON.stringify(body)}`);
  }
  return elapsed;
}

const direct = createResolver({ servers: [real.server], cache: noDnsCache, timeoutMs: 1000 });
const timings: Record<string, number[]> = { 'direct query (baseline)': [] };
for (const check of CHECKS) for (const kind of ['warm', 'cold']) timings[`${check.name} ${kind}`] = [];
for (const check of CHECKS) await call(apps.warm.base, check.query); // fills the warm cache
for (let round = -30; round < ROUNDS; round++) {
  const keep = round >= 0; // the first rounds warm up the JIT and the sockets
  const started = performance.now();
  await direct.query('good.mail.test', 'MX');
  if (keep) timings['direct query (baseline)']?.push(performance.now() - started);
  for (const check of CHECKS) {
    const warm = await call(apps.warm.base, check.query);
    coldCache.empty();
    const cold = await call(apps.cold.base, check.query);
    if (keep) {
      timings[`${check.name} warm`]?.push(warm);
      timings[`${check.name} cold`]?.push(cold);
    }
  }
}
/** Waves of queries: a query more than half the delay after the first of its wave starts the next. */
function countWaves(arrivals: readonly number[]): { waves: number; queries: number } {
  let waves = 0;
  let waveStart = Number.NEGATIVE_INFINITY;
  for (const at of arrivals) {
    if (at - waveStart > DELAY_MS / 2) {
      waves += 1;
      waveStart = at;
    }
  }
  return { waves, queries: arrivals.length };
}
const delayed: Record<string, number[]> = {};
const waves: Record<string, string> = {};
for (const check of CHECKS) {
  delayed[check.name] = [];
  const seen = new Set<string>();
  for (let round = 0; round < 10; round++) {
    relay.arrivals.length = 0;
    delayedCache.empty();
    delayed[check.name]?.push(await call(apps.delayed.base, check.query));
    const counted = countWaves(relay.arrivals);
    seen.add(`${counted.waves} (${counted.queries} queries)`);
    await sleep(5);
  }
  waves[check.name] = [...seen].join(' or ');
}

const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;
const rows: Record<string, Record<string, string>> = {};
for (const [name, values] of Object.entries(timings)) {
  rows[name] = { 'median ms': quantile(values, 0.5).toFixed(3), 'p99 ms': quantile(values, 0.99).toFixed(3) };
}
for (const [name, values] of Object.entries(delayed)) {
  const median = quantile(values, 0.5);
  rows[`${name} cold, +${DELAY_MS} ms a query`] = {
    'median ms': median.toFixed(3),
    'p99 ms': quantile(values, 0.99).toFixed(3),
    'round trips (queries)': waves[name] ?? '',
  };
}
console.log(`mail: /api/v1/mail against Knot DNS on loopback, ${ROUNDS} interleaved rounds (cold with delay: 10)`);
console.table(rows);
const warmWorst = Math.max(...CHECKS.map((check) => quantile(timings[`${check.name} warm`] ?? [], 0.5)));
console.log(
  `warm median (worst of the two domains): ${warmWorst.toFixed(3)} ms (target < 5 ms): ${warmWorst < 5 ? 'met' : 'NOT met'}`,
);
for (const entry of Object.values(apps)) await entry.app.close();
relay.close();
await real.stop();
process.exitCode = warmWorst < 5 ? 0 : 1;
