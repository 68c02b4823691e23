// `node bench/batch-server.ts`: where a batch item's server CPU goes beyond answerBatch. The service
// runs as `npm run bench -- batch` runs it (same environment, data and load, pinned to core 1) and its
// CPU is read per thread from /proc: the main thread apart from V8's and libuv's helper threads.
// BENCH_PROFILE=<dir> also takes a CPU profile of it and splits the main thread's busy time into the
// route's parts (answerBatch, body parsing, the Sets, writing, GC, ...), in µs an item.
// BENCH_ROUNDS (3) rounds of BENCH_SECONDS (6), after 3 s of warm-up.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/support/free-port.ts';
import { startListeningProcess } from '../test/support/listening-process.ts';
import { serviceArguments } from '../test/support/start-command.ts';
import { batchScenarioSetup } from './json-scenario.ts';
import { CONNECTIONS, loadOptions, SERVICE_ENV, waitUntilReady } from './scenarios.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const PROFILE_DIR = process.env.BENCH_PROFILE;
const ITEMS = 1000;

// As bench/run.ts: the load on core 0, the service on core 1.
const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-pc', '0', String(process.pid)]).status === 0;
const setup = await batchScenarioSetup();
const env = { ...SERVICE_ENV, METRICS_PORT: String(await freePort()), ...setup.env };
// BENCH_NODE_ARGS: more flags for the service's node (--trace-gc: its lines go to BENCH_OUTPUT).
const extra = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
const node = [process.execPath, ...extra, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])];
const [command, ...args] = [...(pinned ? ['taskset', '-c', '1'] : []), ...node, ...serviceArguments()];
const service = await startListeningProcess(command as string, args, env, 'inherit');

/** CPU seconds of the process's threads by name (V8's workers summed), user and kernel apart. */
function threadSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  const add = (name: string, ticks: string | undefined) =>
    byName.set(name, (byName.get(name) ?? 0) + Number(ticks) / 100);
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = tid === String(pid) ? 'main thread' : (/\((.*)\)/.exec(stat)?.[1] ?? '?').replace(/\d+$/, '');
    const fields = stat.split(') ')[1]?.split(' ') ?? [];
    add(`${name}, user`, fields[11]);
    add(`${name}, kernel`, fields[12]);
  }
  return byName;
}

const load = (seconds: number) =>
  autocannon({ url: service.url, connections: CONNECTIONS, duration: seconds, timeout: 30, ...loadOptions(setup) });

const totals = new Map<string, number>();
let batches = 0;
try {
  await waitUntilReady(service.url);
  await setup.verify?.(service.url);
  // An idle second and more, so the profile's split tells the start-up from the load.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await load(3);
  for (let round = 1; round <= ROUNDS; round++) {
    const before = threadSeconds(service.pid);
    const result = await load(SECONDS);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    const after = threadSeconds(service.pid);
    const perItem = (name: string) =>
      (((after.get(name) ?? 0) - (before.get(name) ?? 0)) * 1e6) / result.requests.total / ITEMS;
    const all = [...after.keys()].reduce((sum, name) => sum + perItem(name), 0);
    const main = perItem('main thread, user') + perItem('main thread, kernel');
    console.log(
      `round ${round}: ${result.requests.total} batches, ${all.toFixed(2)} µs an item, main thread ${main.toFixed(2)}`,
    );
    for (const name of after.keys()) totals.set(name, (totals.get(name) ?? 0) + perItem(name) * result.requests.total);
    batches += result.requests.total;
  }
} finally {
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
  await setup.close();
  if (process.env.BENCH_OUTPUT) writeFileSync(process.env.BENCH_OUTPUT, service.output());
}
const all = [...totals.values()].reduce((a, b) => a + b, 0) / batches;
console.log(
  `\nserver CPU over ${batches} batches of ${ITEMS} new addresses, ${CONNECTIONS} connections: ${all.toFixed(2)} µs an item`,
);
for (const [name, total] of [...totals].sort((a, b) => b[1] - a[1])) {
  if (total / batches >= 0.005)
    console.log(
      `  ${(total / batches).toFixed(2).padStart(6)} µs (${((100 * total) / batches / all).toFixed(1)}%)  ${name}`,
    );
}
if (PROFILE_DIR) {
  const { splitProfile } = await import('./profile-split.ts');
  const newest = readdirSync(PROFILE_DIR)
    .filter((file) => file.endsWith('.cpuprofile'))
    .sort()
    .at(-1) as string;
  const main = (totals.get('main thread, user') ?? 0) + (totals.get('main thread, kernel') ?? 0);
  splitProfile(path.join(PROFILE_DIR, newest), main / batches);
}
