// `node bench/embedded-load.ts`: what checking the embedded data's caches against their checksums
// costs at start-up. Loads the IP data (embedded City + ASN, caches already in place) in this
// process, rounds interleaved with the baseline: the same load from another checkout when
// BASELINE_SRC names its src/ (e.g. a worktree of main before the checksums), and always the bare
// SHA-256 of the two cache files. Medians, in ms.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

type Load = (options: object) => Promise<unknown>;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const root = path.resolve('.tmp/bench-embedded-load');
const noData = { geoipCityDb: null, geoipAsnDb: null, geoipAnonymousDb: null, geoipConnectionTypeDb: null };
const variants: Record<string, { load: Load; cacheDir: string }> = {};
const add = async (name: string, src: string) => {
  const { loadIpData } = (await import(path.join(src, 'ipinfo/data/ip-data.ts'))) as { loadIpData: Load };
  const cacheDir = path.join(root, name.replace(/\W+/g, '-'));
  mkdirSync(cacheDir, { recursive: true });
  variants[name] = { load: (options) => loadIpData({ ...options, embeddedCacheDir: cacheDir }), cacheDir };
};
await add('this checkout (checksums)', path.resolve(import.meta.dirname, '../src'));
if (process.env.BASELINE_SRC) await add('baseline checkout', path.resolve(process.env.BASELINE_SRC));

const times: Record<string, number[]> = {};
const timed = async (name: string, work: () => Promise<unknown> | unknown) => {
  const started = performance.now();
  await work();
  times[name] = [...(times[name] ?? []), performance.now() - started];
};
for (const { load } of Object.values(variants)) await load({ dataDir: root, ...noData });
const ours = variants['this checkout (checksums)']?.cacheDir as string;
const cacheFiles = readdirSync(ours)
  .filter((name) => !name.endsWith('.sha256'))
  .map((name) => path.join(ours, name));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, { load }] of Object.entries(variants)) await timed(name, () => load({ dataDir: root, ...noData }));
  await timed('read the two cache files', () => cacheFiles.map((file) => readFileSync(file)));
  const contents = cacheFiles.map((file) => readFileSync(file));
  await timed('SHA-256 of the two cache files', () =>
    contents.map((data) => createHash('sha256').update(data).digest('hex')),
  );
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.table(
  Object.fromEntries(
    Object.entries(times).map(([name, values]) => [name, { 'median ms': Math.round(median(values)) }]),
  ),
);
