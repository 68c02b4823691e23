// `npm run bench:rpki`: RPKI origin validation with 1 M VRPs (issue 33), through the production
// pipeline. A generated set shaped like the real one (bench/vrp-generator.ts) is written as
// rpki-client JSON, parsed and compiled as the updater's child does it (in this process, timed, and
// by the real child, whose peak RSS is sampled), then loaded by fresh processes that already hold
// the embedded data: the resident memory the set adds, and the cost of one validation beside the
// plain ASN lookup of the same addresses, rounds interleaved. BENCH_VRPS VRPs (1,000,000),
// BENCH_ROUNDS rounds (7), BENCH_RUNS processes for the memory (5); medians and minima, since the
// machine is shared. Works in .tmp/bench-rpki.
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ipDataPaths, readManifest, SOURCES, type SourceId } from '../src/ipinfo/data/data-files.ts';
import { embeddedAsnRanges, embeddedCityDatabase } from '../src/ipinfo/data/embedded-data.ts';
import { type IpData, loadIpData } from '../src/ipinfo/data/ip-data.ts';
import { loadVrps } from '../src/ipinfo/data/vrp-files.ts';
import type { IpAddress } from '../src/net/ip-address.ts';
import { classifyAddress } from '../src/net/special-addresses.ts';
import { networkRpki } from '../src/rpki/answers.ts';
import { validateRoute } from '../src/rpki/validity.ts';
import { encodeVrps } from '../src/rpki/vrp-file.ts';
import { parseVrpJson } from '../src/rpki/vrp-json.ts';
import { xorshift } from '../test/support/public-addresses.ts';
import { generateVrpJson } from './vrp-generator.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const VRPS = Number(process.env.BENCH_VRPS ?? 1_000_000);
/** Calls of each operation per round and family. */
const CALLS = 1_000_000;
const SAMPLE = 100_000;
const DATA_DIR = path.resolve('.tmp/bench-rpki');
const paths = ipDataPaths(DATA_DIR);
const JSON_FILE = path.join(DATA_DIR, 'vrps.json');
const NO_DATABASES = { geoipCityDb: null, geoipAsnDb: null, geoipAnonymousDb: null, geoipConnectionTypeDb: null };
const UPDATE_CHILD = path.resolve(import.meta.dirname, '../src/ipinfo/updater/update-child.ts');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const min = (values: number[]) => Math.min(...values);
const mb = (bytes: number) => (bytes / 1024 ** 2).toFixed(1);

async function settled(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 4; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage();
}
const settledRss = async () => (await settled()).rss;
const settledHeap = async () => (await settled()).heapUsed;

/** One process's figure: the embedded data loaded, then the installed VRP set as the service loads it. */
async function memoryChild(): Promise<void> {
  const data = await loadIpData({ dataDir: DATA_DIR, ...NO_DATABASES, feedsOff: ['rpki'] });
  const before = await settledRss();
  const started = performance.now();
  const problems: string[] = [];
  const vrps = await loadVrps(
    paths.downloads,
    { off: false, operatorFile: false },
    undefined,
    await readManifest(paths.manifest),
    problems,
  );
  const loadMs = performance.now() - started;
  const after = await settledRss();
  if (vrps === undefined || data.network === undefined)
    throw new Error(`no VRP set or ASN data: ${problems.join('; ')}`);
  console.log(JSON.stringify({ before, after, loadMs, size: vrps.set.size }));
}

interface Route {
  address: IpAddress;
  route: string;
  length: number;
  asn: number;
}

/** Addresses describeIp would validate: public, with a route and an origin in the ASN data. */
function sampleRoutes(data: IpData, draw: () => IpAddress): Route[] {
  const routes: Route[] = [];
  for (let tries = 0; routes.length < SAMPLE && tries < SAMPLE * 20; tries++) {
    const address = draw();
    if (classifyAddress(address)?.globallyReachable === false) continue;
    const network = data.network?.lookupNetworkAddress?.(address);
    if (network?.route === undefined || network.asnNumber === undefined) continue;
    const length = Number(network.route.slice(network.route.indexOf('/') + 1));
    routes.push({ address, route: network.route, length, asn: network.asnNumber });
  }
  return routes;
}

async function timeChild(): Promise<void> {
  const data = await loadIpData({ dataDir: DATA_DIR, ...NO_DATABASES });
  const { rpki: set, network } = data;
  if (set === undefined || network?.lookupNetworkAddress === undefined) throw new Error('no VRP set or ASN data');
  const lookup = network.lookupNetworkAddress;
  const rows = (await embeddedAsnRanges(paths.embedded)).ranges.rows;
  const next = xorshift(0x33);
  const v6Row = () => {
    const row = Math.floor((next() / 2 ** 32) * rows.asn6.length);
    const first = ((rows.firstHi[row] as bigint) << 64n) | (rows.firstLo[row] as bigint);
    const last = ((rows.lastHi[row] as bigint) << 64n) | (rows.lastLo[row] as bigint);
    const random = (BigInt(next()) << 64n) | (BigInt(next()) << 32n) | BigInt(next());
    return { version: 6, value: first + (random % (last - first + 1n)) } as const;
  };
  const families = {
    // Random public IPv4 addresses, as the json scenario's clients.
    IPv4: sampleRoutes(data, () => ({ version: 4, value: next() })),
    // IPv6 space is almost all unrouted: random addresses of random routed ranges instead.
    IPv6: sampleRoutes(data, v6Row),
  };
  let sink = 0;
  const operations: Record<string, (r: Route) => number> = {
    'ASN lookup (lookupNetworkAddress)': (r) => lookup(r.address)?.asnNumber ?? 0,
    validateRoute: (r) => validateRoute(set, r.address, r.length, r.asn).covering.length,
    'networkRpki (what describeIp adds)': (r) => networkRpki(set, r.address, r.route, r.asn).vrps.length,
  };
  const times: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [family, routes] of Object.entries(families)) {
      const passes = Math.ceil(CALLS / routes.length);
      for (const [name, operation] of Object.entries(operations)) {
        const started = process.hrtime.bigint();
        for (let pass = 0; pass < passes; pass++) for (const route of routes) sink += operation(route);
        const ns = Number(process.hrtime.bigint() - started) / (passes * routes.length);
        const key = `${family} ${name}`;
        times[key] = [...(times[key] ?? []), ns];
      }
    }
  }
  for (const [family, routes] of Object.entries(families)) {
    const states = { valid: 0, invalid: 0, 'not-found': 0 };
    let covering = 0;
    for (const r of routes) {
      const validity = validateRoute(set, r.address, r.length, r.asn);
      states[validity.state]++;
      covering += validity.covering.length;
    }
    const share = (n: number) => `${((100 * n) / routes.length).toFixed(1)}%`;
    console.log(
      `${family}: ${routes.length} routed addresses, ${share(states.valid)} valid, ${share(states.invalid)} invalid, ${share(states['not-found'])} not-found, ${(covering / routes.length).toFixed(2)} covering VRPs on average`,
    );
  }
  console.table(
    Object.fromEntries(
      Object.entries(times).map(([key, ns]) => [
        key,
        { 'ns/op min': Math.round(min(ns)), 'ns/op median': Math.round(median(ns)) },
      ]),
    ),
  );
  for (const family of Object.keys(families)) {
    const ns = median(times[`${family} networkRpki (what describeIp adds)`] ?? []);
    console.log(
      `${family} validation (networkRpki) median ${(ns / 1000).toFixed(2)} µs: target <= 2 µs ${ns <= 2000 ? 'met' : 'NOT met'}`,
    );
  }
  if (sink === -1) console.log(sink);
}

/** Runs `node <args>`; resolves with its stdout, its wall time and its peak RSS (VmHWM, sampled every 10 ms). */
function runNode(args: string[], stdin = ''): Promise<{ output: string; ms: number; peakBytes: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  let peakBytes = 0;
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const sampler = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      peakBytes = Math.max(peakBytes, Number(kb ?? 0) * 1024);
    } catch {
      // Exited between two samples.
    }
  }, 10);
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code === 0) resolve({ output, ms: performance.now() - started, peakBytes });
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${output}`));
    });
  });
}

async function main(): Promise<void> {
  console.log(
    `bench:rpki, ${VRPS} VRPs, ${ROUNDS} rounds, ${RUNS} processes for memory; load: ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
  );
  await embeddedCityDatabase(paths.embedded);
  const rows = (await embeddedAsnRanges(paths.embedded)).ranges.rows;
  let started = performance.now();
  const generated = generateVrpJson(rows, VRPS);
  writeFileSync(JSON_FILE, generated.json);
  const pct = (n: number) => `${((100 * n) / VRPS).toFixed(1)}%`;
  console.log(
    `generated in ${((performance.now() - started) / 1000).toFixed(1)} s: ${generated.ipv4} IPv4 + ${generated.ipv6} IPv6 VRPs, ${generated.ases} ASes, ${generated.as0} AS0, maxLength = prefix length for ${pct(generated.exactMaxLength)}; JSON ${mb(generated.json.length)} MB`,
  );

  console.log(
    `  prefix lengths: ${Object.entries(generated.lengths)
      .sort()
      .map(([group, n]) => `${group} ${pct(n)}`)
      .join(', ')}`,
  );
  const parseMs: number[] = [];
  const encodeMs: number[] = [];
  for (let round = 0; round < 3; round++) {
    const text = readFileSync(JSON_FILE, 'utf8');
    started = performance.now();
    const parsed = parseVrpJson(text);
    parseMs.push(performance.now() - started);
    started = performance.now();
    encodeVrps(parsed.entries, parsed.generatedAt);
    encodeMs.push(performance.now() - started);
    if (parsed.entries.length !== VRPS || parsed.malformed.length > 0)
      throw new Error('the parser did not take every VRP');
  }
  const heapBefore = await settledHeap();
  const held = parseVrpJson(readFileSync(JSON_FILE, 'utf8')).entries;
  const objectsBytes = (await settledHeap()) - heapBefore;
  console.log(
    `in this process: parseVrpJson ${Math.round(median(parseMs))} ms, encodeVrps ${Math.round(median(encodeMs))} ms (medians of 3); the ${held.length} parsed VRPs as objects hold ${mb(objectsBytes)} MB of heap`,
  );

  const urls = Object.fromEntries(SOURCES.map((source) => [source.id, null])) as Record<SourceId, string | null>;
  urls.rpki = pathToFileURL(JSON_FILE).href;
  const plan = JSON.stringify({ dataDir: DATA_DIR, urls, skip: {}, licenseKey: null });
  const updates: { ms: number; peakBytes: number }[] = [];
  for (let run = 0; run < 3; run++) {
    const update = await runNode([UPDATE_CHILD], plan);
    const report = JSON.parse(update.output.trim().split('\n').at(-1) ?? '{}').reports?.find(
      (r: { id: string }) => r.id === 'rpki',
    );
    if (report === undefined || report.outcome === 'failed')
      throw new Error(`the updater child failed: ${update.output}`);
    updates.push(update);
  }
  const file = path.join(paths.downloads, SOURCES.find((source) => source.id === 'rpki')?.file as string);
  console.log(
    `updater child (read, parse, check, compile, install): ${Math.round(median(updates.map((u) => u.ms)))} ms, peak RSS ${mb(median(updates.map((u) => u.peakBytes)))} MB (medians of 3; min ${mb(min(updates.map((u) => u.peakBytes)))} MB); installed file ${mb(statSync(file).size)} MB (${statSync(file).size} bytes)`,
  );

  const extra: number[] = [];
  const loads: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const result = JSON.parse((await runNode(['--expose-gc', import.meta.filename, '--memory'])).output);
    extra.push(result.after - result.before);
    loads.push(result.loadMs);
  }
  const met = median(extra) <= 40 * 1024 ** 2;
  console.log(
    `resident memory the set adds to a process holding the embedded data: min ${mb(min(extra))} MB, median ${mb(median(extra))} MB of ${RUNS} processes (target <= 40 MB: ${met ? 'met' : 'NOT met'}); load (read + check) ${Math.round(median(loads))} ms`,
  );
  const timing = await runNode([import.meta.filename, '--time']);
  process.stdout.write(timing.output);
}

const mode = process.argv[2];
if (mode === '--memory') await memoryChild();
else if (mode === '--time') await timeChild();
else await main();
