// `npm run bench:instructions [-- scenario ...]`: instructions per request of netinfo and of the
// bare node:http baseline, counted by valgrind's callgrind.
//
// Why: req/s and CPU time on a shared virtual machine move by 20-50% from one second to the next,
// so a change worth a few percent cannot be seen in them. Callgrind counts the instructions the
// process executes, which does not depend on what the rest of the machine does: repeats of one
// build agree within about 1.5% (JIT and GC timing still vary a little). It counts user space only:
// the kernel's socket work, the same for both servers, is left out, so the ratio here is lower than
// `npm run bench`'s CPU-time ratio. A run takes a minute or two per scenario (valgrind is ~50x slower).
//
// Threads are counted apart: the main thread runs the requests; V8's other threads compile hot
// functions and help the garbage collector. How much compiling falls into the counted requests
// depends on how far the warm-up got (valgrind runs timers, and so the data refresh and answer
// expiry, 50 times more often per request than a real run), so it is shown but not in the ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/support/free-port.ts';
import { type ListeningProcess, startListeningProcess } from '../test/support/listening-process.ts';
import { serviceArguments } from '../test/support/start-command.ts';
import {
  CONNECTIONS,
  loadOptions,
  SCENARIOS,
  type ScenarioSetup,
  SERVICE_ENV,
  sampleAnswerBytes,
  waitUntilReady,
} from './scenarios.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 40_000);

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

// callgrind_control finds a process by files named after $USER and $HOST; valgrind names them
// from its own environment, so both get the same values (HOST is also the service's listen address).
const CONTROL_ENV = { ...process.env, USER: 'netinfo-bench', HOST: '127.0.0.1' };

function callgrindControl(pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { env: CONTROL_ENV, stdio: 'ignore' });
}

/** Starts a server under callgrind with instrumentation off, so startup runs at valgrind's plain speed. */
function startUnderCallgrind(args: string[], env: Record<string, string>, outDir: string): Promise<ListeningProcess> {
  return startListeningProcess(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file', // V8 writes and rewrites its machine code
      '--separate-threads=yes', // one dump file per thread: <file>.<part>-<thread>, thread 01 is main
      `--callgrind-out-file=${path.join(outDir, 'callgrind.out')}`,
      process.execPath,
      ...args,
    ],
    { ...env, USER: CONTROL_ENV.USER, HOST: CONTROL_ENV.HOST },
  );
}

/** Sends `amount` requests; the warm-up tolerates time-outs (first answers under valgrind are slow). */
async function drive(url: string, setup: ScenarioSetup | undefined, amount: number, warmUp = false): Promise<number> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    amount,
    timeout: 30,
    ...loadOptions(setup),
  });
  if (result.non2xx > 0 || (result.errors > 0 && !warmUp)) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return result.requests.total;
}

/** Instructions per request of the main thread and of all other threads together. */
interface Counted {
  main: number;
  others: number;
}

/** Warms the server up (JIT) uninstrumented, then counts the instructions of `REQUESTS` requests. */
async function instructionsPerRequest(
  server: ListeningProcess,
  url: string,
  outDir: string,
  setup?: ScenarioSetup,
): Promise<Counted> {
  await drive(url, setup, WARMUP_REQUESTS, true);
  callgrindControl(server.pid, '--instr=on');
  const requests = await drive(url, setup, REQUESTS);
  callgrindControl(server.pid, '--dump');
  const counted = { main: 0, others: 0 };
  for (const file of readdirSync(outDir)) {
    const summary = /^summary: (\d+)$/m.exec(readFileSync(path.join(outDir, file), 'utf8'));
    const thread = /-(\d+)$/.exec(file)?.[1];
    if (thread === undefined || Number(thread) === 1) counted.main += Number(summary?.[1] ?? 0);
    else counted.others += Number(summary?.[1] ?? 0);
  }
  return { main: counted.main / requests, others: counted.others / requests };
}

async function measure(name: string): Promise<Counted> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const setup = await scenario.setup?.();
  const dirs = [
    mkdtempSync(path.join(tmpdir(), 'callgrind-')),
    mkdtempSync(path.join(tmpdir(), 'callgrind-')),
  ] as const;
  const running: ListeningProcess[] = [];
  try {
    const service = await startUnderCallgrind(
      serviceArguments(),
      { ...SERVICE_ENV, METRICS_PORT: String(await freePort()), ...scenario.env, ...setup?.env },
      dirs[0],
    );
    running.push(service);
    await waitUntilReady(service.url, 120_000);
    await setup?.verify?.(service.url);
    const bodyBytes = await sampleAnswerBytes(service.url, scenario, setup);
    const netinfo = await instructionsPerRequest(
      service,
      setup?.requests ? service.url : `${service.url}${scenario.path}`,
      dirs[0],
      setup,
    );
    const bare = await startUnderCallgrind(['bench/bare-server.ts'], { BARE_BODY_BYTES: String(bodyBytes) }, dirs[1]);
    running.push(bare);
    const baseline = await instructionsPerRequest(bare, setup?.requests ? bare.url : `${bare.url}/`, dirs[1], setup);
    console.log(
      `${name} (${scenario.path}), ${REQUESTS} requests after ${WARMUP_REQUESTS} of warm-up, ${CONNECTIONS} connections:`,
    );
    const row = (counted: Counted) => ({
      'main thread': Math.round(counted.main),
      'other threads (JIT compiler, GC)': Math.round(counted.others),
    });
    console.table({ 'bare node:http': row(baseline), netinfo: row(netinfo) });
    console.log(
      `instruction ratio ${(baseline.main / netinfo.main).toFixed(2)} (baseline / netinfo, main thread, user space only)\n`,
    );
    return netinfo;
  } finally {
    for (const server of running) server.child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await setup?.close();
  }
}

const requested = process.argv.slice(2);
const measured = new Map<string, Counted>();
for (const name of requested.length > 0 ? requested : ['ipv6', 'json']) measured.set(name, await measure(name));

// Targets against another scenario of the same run (e.g. json-rpki against json), on the main thread.
for (const [name, counted] of measured) {
  const relative = SCENARIOS[name]?.relative;
  if (relative?.instructionsTimes === undefined) continue;
  const other = measured.get(relative.scenario);
  if (other === undefined) {
    console.log(
      `${name}: run it with ${relative.scenario} (npm run bench:instructions -- ${relative.scenario} ${name})`,
    );
    continue;
  }
  const times = counted.main / other.main;
  const met = times <= relative.instructionsTimes;
  console.log(
    `${name} ${Math.round(counted.main)} instructions per request vs ${relative.scenario} ${Math.round(other.main)}: ${((times - 1) * 100).toFixed(1)}% (target <= +${((relative.instructionsTimes - 1) * 100).toFixed(0)}%): ${met ? 'met' : 'NOT met'}`,
  );
  if (!met) process.exitCode = 1;
}
