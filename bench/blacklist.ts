// `npm run bench:blacklist`: eight DNSBL zones answered by a local DNS server that delays each by
// a different 50-200 ms. The baseline, measured in the same run, is the slowest list asked alone
// (one direct query to its zone); the target is the whole /api/v1/blacklist answer within 1.15x.
import { setTimeout as sleep } from 'node:timers/promises';
import { noDnsCache } from '../src/dns/cache.ts';
import { createResolver } from '../src/dns/resolver.ts';
import { formatServer } from '../src/dns/servers.ts';
import { buildTestApp } from '../test/support/app.ts';
import { soaRecord, startFakeDnsServer } from '../test/support/fake-dns-server.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const DELAYS_MS = [50, 70, 90, 110, 130, 150, 175, 200];
const zones = DELAYS_MS.map((delay, index) => ({ name: `list${index + 1}`, zone: `bl${index + 1}.bench.test`, delay }));

const dns = await startFakeDnsServer((question) => {
  const zone = zones.find((entry) => question.name.endsWith(`.${entry.zone}`));
  if (!zone) return { rcode: 'NXDOMAIN' };
  // Odd-numbered lists list the address, so both the listed and the clean path are timed.
  const listed = Number(zone.name.slice(4)) % 2 === 1;
  if (!listed) return { rcode: 'NXDOMAIN', authorities: [soaRecord(zone.zone)], delayMs: zone.delay };
  const answer =
    question.type === 'TXT'
      ? { type: 'TXT' as const, name: question.name, ttl: 60, class: 'IN' as const, data: ['listed for the benchmark'] }
      : { type: 'A' as const, name: question.name, ttl: 60, class: 'IN' as const, data: '127.0.0.2' };
  return { answers: [answer], delayMs: zone.delay };
});

const app = await buildTestApp({
  DNS_SERVERS: formatServer(dns.server),
  DNS_CACHE_ENTRIES: '0',
  DNSBL_CACHE_SECONDS: '0',
  DNSBL_TIMEOUT_MS: '1000',
  RATE_LIMITS: 'public=1000000/1000000',
  DNSBL_ZONES: zones.map((zone) => `${zone.name}=${zone.zone}`).join(','),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const slowest = zones[zones.length - 1];
if (!slowest) throw new Error('no zones');
const direct = createResolver({ servers: [dns.server], cache: noDnsCache, timeoutMs: 1000 });

const single: number[] = [];
const whole: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Distinct addresses so neither side can be served from any cache.
  const ip = `192.0.2.${(round % 250) + 1}`;
  let started = performance.now();
  await direct.query(`${ip.split('.').reverse().join('.')}.${slowest.zone}`, 'A');
  single.push(performance.now() - started);
  started = performance.now();
  const response = await fetch(`${base}/api/v1/blacklist?ip=${ip}`);
  const body = (await response.json()) as { total: number; listed: number; errors: number };
  whole.push(performance.now() - started);
  if (body.total !== 8 || body.listed !== 4 || body.errors !== 0)
    throw new Error(`wrong answer: ${JSON.stringify(body)}`);
  await sleep(5);
}

const quantile = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) * q)] ?? 0;
const row = (values: number[]) => ({
  'median ms': quantile(values, 0.5).toFixed(1),
  'p95 ms': quantile(values, 0.95).toFixed(1),
});
console.log(`blacklist: 8 lists delayed ${DELAYS_MS.join('/')} ms, ${ROUNDS} rounds, 4 listed + 4 clean`);
console.table({ 'slowest list alone (direct query)': row(single), '/api/v1/blacklist (all 8)': row(whole) });
const ratio = quantile(whole, 0.5) / quantile(single, 0.5);
console.log(`median ratio ${ratio.toFixed(3)} (target <= 1.15): ${ratio <= 1.15 ? 'met' : 'NOT met'}`);
await app.close();
await dns.close();
process.exitCode = ratio <= 1.15 ? 0 : 1;
