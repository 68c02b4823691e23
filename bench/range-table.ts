// Micro-benchmark: 1M random lookups against the real X4BNet datacenter feed.
// Run: node bench/range-table.ts
// Baselines in the same run: the cost of parsing the address text alone (what lookup(string)
// pays before searching), and a linear most-specific scan over the same CIDRs (on fewer probes).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCidrList } from '../src/ipinfo/data/feeds.ts';
import { buildRangeTable } from '../src/ipinfo/data/range-table.ts';
import type { Cidr } from '../src/net/cidr.ts';
import { formatIp, parseIp } from '../src/net/ip-address.ts';
import { feedDir } from '../test/support/mmdb-fixtures.ts';

const LOOKUPS = 1_000_000;

let state = 42;
function random32(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}

function time(label: string, count: number, run: () => number): void {
  const started = process.hrtime.bigint();
  const hits = run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = Math.round(count / seconds).toLocaleString('en');
  console.log(`${label.padEnd(44)} ${rate.padStart(12)} lookups/s  (${hits} hits of ${count})`);
}

const cidrs: Cidr[] = [];
for (const file of ['x4bnet-datacenter-ipv4.txt', 'x4bnet-datacenter-ipv6.txt']) {
  cidrs.push(...parseCidrList(readFileSync(path.join(feedDir, file), 'utf8')).entries);
}
const buildStarted = performance.now();
const table = buildRangeTable(cidrs.map((cidr) => ({ cidr, value: true })));
const buildMs = (performance.now() - buildStarted).toFixed(0);
console.log(`${cidrs.length} CIDRs -> ${table.segmentCount} segments, built in ${buildMs} ms`);

const v4Texts = Array.from({ length: LOOKUPS }, () => formatIp({ version: 4, value: random32() }));
// Random addresses inside 2000::/3, where all allocated IPv6 unicast space is.
const v6Texts = Array.from({ length: LOOKUPS }, () => {
  const high = (0x2000 | (random32() & 0x1fff)).toString(16);
  return `${high}:${(random32() & 0xffff).toString(16)}:${(random32() & 0xffff).toString(16)}::${(random32() & 0xffff).toString(16)}`;
});
const v4Parsed = v4Texts.map((text) => parseIp(text) ?? { version: 4 as const, value: 0 });

time('baseline: parseIp only (IPv4 text)', LOOKUPS, () => v4Texts.filter((t) => parseIp(t) !== null).length);
time('lookup(string), IPv4', LOOKUPS, () => v4Texts.filter((t) => table.lookup(t) === true).length);
time('lookupAddress(parsed), IPv4', LOOKUPS, () => v4Parsed.filter((a) => table.lookupAddress(a) === true).length);
time('lookup(string), IPv6', LOOKUPS, () => v6Texts.filter((t) => table.lookup(t) === true).length);

const v4Cidrs = cidrs.filter((c) => c.version === 4);
const LINEAR_PROBES = 2_000;
time('baseline: linear scan, IPv4', LINEAR_PROBES, () => {
  let hits = 0;
  for (const address of v4Parsed.slice(0, LINEAR_PROBES)) {
    if (v4Cidrs.some((c) => address.value >= c.first && address.value <= c.last)) hits++;
  }
  return hits;
});
