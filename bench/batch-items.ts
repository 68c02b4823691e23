// `node bench/batch-items.ts`: server CPU per batch item for addresses never asked before, in this
// process, with the data `npm run bench -- batch` serves (embedded City + ASN, the security feeds
// when ../shared/fixtures/feeds is there, no VRP set). Each step gets addresses of its own, so no
// cache of an earlier step helps it; medians of BENCH_ROUNDS rounds of BENCH_ITEMS items, in µs.
import { Reader } from 'maxmind';
import { describeIp } from '../src/ipinfo/answers/describe-ip.ts';
import { serializeIpInfo } from '../src/ipinfo/answers/ip-answers.ts';
import { answerBatch } from '../src/ipinfo/batch.ts';
import { loadIpData } from '../src/ipinfo/data/ip-data.ts';
import { parseIp } from '../src/net/ip-address.ts';
import { freshAddresses } from './fresh-addresses.ts';
import { installFeeds } from './json-scenario.ts';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

console.log(await installFeeds());
const data = await loadIpData({
  dataDir: '.tmp/bench-data',
  geoipCityDb: null,
  geoipAsnDb: null,
  geoipAnonymousDb: null,
  geoipConnectionTypeDb: null,
  feedsOff: ['rpki'],
});
const { embeddedCityDatabase } = await import('../src/ipinfo/data/embedded-data.ts');
const { ipDataPaths } = await import('../src/ipinfo/data/data-files.ts');
const cityDb = (await embeddedCityDatabase(ipDataPaths('.tmp/bench-data').embedded)).value;
const mmdbLib = new Reader(cityDb);

let pending: string[] = [];
/** Kept, as the route keeps a batch's body until it is sent. */
export let body: Buffer = Buffer.alloc(0);
const steps: Record<string, (ip: string) => unknown> = {
  "the route's item (answerBatch, by 1,000)": (ip) => {
    pending.push(ip);
    if (pending.length < 1000) return;
    body = answerBatch(pending, data, undefined, undefined) as Buffer;
    pending = [];
  },
  'a batch item (describeIp + its JSON)': (ip) => serializeIpInfo(describeIp(ip, data)),
  'describeIp only': (ip) => describeIp(ip, data),
  'City lookup (data.location.lookupCity)': (ip) => data.location?.lookupCity(ip),
  'City record by mmdb-lib, no cache (for comparison)': (ip) => mmdbLib.get(ip),
  'ASN lookup (parse + lookupNetworkAddress)': (ip) => {
    const address = parseIp(ip);
    return address && data.network?.lookupNetworkAddress?.(address);
  },
  'security feeds (parse + lookupAddress)': (ip) => {
    const address = parseIp(ip);
    return address && data.feeds.lookupAddress(address, 15169);
  },
};

// BENCH_STEP=<words>[,<words>...]: only the steps whose name contains one of them (to profile one with --cpu-prof).
const only = process.env.BENCH_STEP;
if (only)
  for (const name of Object.keys(steps)) if (!only.split(',').some((part) => name.includes(part))) delete steps[name];
let next = 0;
const fresh = () => {
  const draw = freshAddresses(next);
  next += ITEMS * 2;
  return Array.from({ length: ITEMS }, draw);
};
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const perItem: Record<string, number[]> = {};
let located = 0;
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, step] of Object.entries(steps)) {
    const addresses = fresh();
    const started = cpuUs();
    for (const ip of addresses) step(ip);
    // Round 0 warms the code up and is not counted.
    if (round > 0) perItem[name] = [...(perItem[name] ?? []), (cpuUs() - started) / ITEMS];
    if (round === 1 && name === 'describeIp only') {
      located = addresses.filter((ip) => describeIp(ip, data).location !== undefined).length;
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `${ROUNDS} rounds of ${ITEMS} new addresses per step (${((located / ITEMS) * 100).toFixed(0)}% with a location):`,
);
console.table(
  Object.fromEntries(
    Object.entries(perItem).map(([name, values]) => [name, { 'CPU µs/item': median(values).toFixed(2) }]),
  ),
);
console.log(
  `heap used ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB, resident ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
);
