// `node bench/batch-against.ts <other tree> [route|describe|city|asn]`: CPU µs per new address of
// this tree and another (e.g. `mkdir /tmp/base && git archive main | tar -x -C /tmp/base`), both
// loaded into this process and run in alternate rounds of fresh addresses. On a shared machine a
// step's few percent drown in the noise between two runs; alternate rounds in one process see the
// same noise, and the lowest of them is the one least disturbed. BENCH_ITEMS a round (20,000),
// BENCH_ROUNDS (12); the data is `npm run bench -- batch`'s, as in bench/batch-items.ts.
import path from 'node:path';
import { freshAddresses } from './fresh-addresses.ts';
import { installFeeds } from './json-scenario.ts';

const [other, step = 'route'] = process.argv.slice(2);
if (other === undefined) throw new Error('usage: node bench/batch-against.ts <other tree> [route|describe|city|asn]');
const ITEMS = Number(process.env.BENCH_ITEMS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const dataDir = path.resolve('.tmp/bench-data');
console.log(await installFeeds());

async function runnerOf(root: string): Promise<(ips: string[]) => unknown> {
  const { loadIpData } = await import(path.join(root, 'src/ipinfo/data/ip-data.ts'));
  const { answerBatch } = await import(path.join(root, 'src/ipinfo/batch.ts'));
  const { describeIp } = await import(path.join(root, 'src/ipinfo/answers/describe-ip.ts'));
  const data = await loadIpData({
    dataDir,
    geoipCityDb: null,
    geoipAsnDb: null,
    geoipAnonymousDb: null,
    geoipConnectionTypeDb: null,
    feedsOff: ['rpki'],
  });
  const each = (answer: (ip: string) => unknown) => (ips: string[]) => ips.map(answer);
  if (step === 'describe') return each((ip) => describeIp(ip, data));
  if (step === 'city') return each((ip) => data.location.lookupCity(ip));
  if (step === 'asn') return each((ip) => data.network.lookupNetwork(ip));
  return (ips) => {
    for (let i = 0; i < ips.length; i += 1000) answerBatch(ips.slice(i, i + 1000), data, undefined, undefined);
  };
}

const sides = { this: await runnerOf(path.resolve('.')), other: await runnerOf(path.resolve(other)) };
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const perItem: Record<string, number[]> = { this: [], other: [] };
let next = 0;
for (let round = 0; round <= ROUNDS; round++) {
  for (const name of round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const)) {
    const draw = freshAddresses(next);
    next += ITEMS * 2;
    const ips = Array.from({ length: ITEMS }, draw);
    const started = cpuUs();
    sides[name](ips);
    // Round 0 warms the code up and is not counted.
    if (round > 0) perItem[name]?.push((cpuUs() - started) / ITEMS);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
for (const [name, values] of Object.entries(perItem)) {
  console.log(
    `${step}, ${name === 'this' ? 'this tree' : other}: lowest ${Math.min(...values).toFixed(2)}, median ${median(values).toFixed(2)} µs a new address`,
  );
}
