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
  sampleAnswer,
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

/**
 * Node's arguments for the server measured as netinfo: `npm start`'s, or BENCH_SERVER_ARGS (split at
 * spaces), e.g. another checkout's `src/start.js` to compare two builds in runs started together, or
 * bench/fastify-floor.ts.
 */
function serverArguments(): string[] {
  return process.env.BENCH_SERVER_ARGS?.split(' ') ?? serviceArguments();
}

/** Instructions per request of the main thread and of all other threads together. */
interface Counted {
  main: number;
  others: number;
  /** Answers made anew during the counted requests (json's answer cache missed). */
  answersMade?: number;
}

/**
 * The json answer cache's misses so far. Its answers live a minute: a run slowed down (a busy
 * machine, valgrind) lets more of them expire, and each one made again (reverse lookup included)
 * adds its cost to the count, so the count is only comparable at a similar number of misses.
 */
async function answerCacheMisses(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^netinfo_cache_requests_total\{cache="json",result="miss"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Warms the server up (JIT) uninstrumented, then counts the instructions of `REQUESTS` requests. */
async function instructionsPerRequest(
  server: ListeningProcess,
  url: string,
  outDir: string,
  setup?: ScenarioSetup,
  metricsUrl?: string,
): Promise<Counted> {
  await drive(url, setup, WARMUP_REQUESTS, true);
  const missesBefore = metricsUrl === undefined ? 0 : await answerCacheMisses(metricsUrl);
  // Rendering the metrics leaves garbage: collected before the counted requests, not during them.
  if (metricsUrl !== undefined) await drive(url, setup, 2_000, true);
  callgrindControl(server.pid, '--instr=on');
  const requests = await drive(url, setup, REQUESTS);
  callgrindControl(server.pid, '--dump');
  const counted: Counted = { main: 0, others: 0 };
  if (metricsUrl !== undefined) counted.answersMade = (await answerCacheMisses(metricsUrl)) - missesBefore;
  for (const file of readdirSync(outDir)) {
    const summary = /^summary: (\d+)$/m.exec(readFileSync(path.join(outDir, file), 'utf8'));
    const thread = /-(\d+)$/.exec(file)?.[1];
    if (thread === undefined || Number(thread) === 1) counted.main += Number(summary?.[1] ?? 0);
    else counted.others += Number(summary?.[1] ?? 0);
  }
  return { ...counted, main: counted.main / requests, others: counted.others / requests };
}

async function measure(name: string): Promise<Counted> {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const setup = await scenario.setup?.();
  const callgrindDir = () => mkdtempSync(path.join(tmpdir(), 'callgrind-'));
  const dirs = [callgrindDir(), callgrindDir(), callgrindDir()] as const;
  const running: ListeningProcess[] = [];
  try {
    const metricsPort = await freePort();
    const service = await startUnderCallgrind(
      serverArguments(),
      { ...SERVICE_ENV, METRICS_PORT: String(metricsPort), ...scenario.env, ...setup?.env },
      dirs[0],
    );
    running.push(service);
    await waitUntilReady(service.url, 120_000);
    await setup?.verify?.(service.url);
    const sample = await sampleAnswer(service.url, scenario, setup);
    const netinfo = await instructionsPerRequest(
      service,
      setup?.requests ? service.url : `${service.url}${scenario.path}`,
      dirs[0],
      setup,
      scenario.path.startsWith('/api/v1/json') ? `http://127.0.0.1:${metricsPort}/metrics` : undefined,
    );
    const bareServer = async (env: Record<string, string>, dir: string) => {
      const bare = await startUnderCallgrind(['bench/bare-server.ts'], env, dir);
      running.push(bare);
      return instructionsPerRequest(bare, setup?.requests ? bare.url : `${bare.url}/`, dir, setup);
    };
    const baseline = await bareServer({ BARE_BODY_BYTES: String(sample.bytes) }, dirs[1]);
    // The same bare server sending netinfo's headers (fixed values): what node:http alone pays for
    // them, the ratio no server on node:http that sends them can pass.
    const withHeaders = await bareServer(
      { BARE_BODY_BYTES: String(sample.bytes), BARE_HEADERS: JSON.stringify(sample.headers) },
      dirs[2],
    );
    console.log(
      `${name} (${scenario.path}), ${REQUESTS} requests after ${WARMUP_REQUESTS} of warm-up, ${CONNECTIONS} connections:`,
    );
    const row = (counted: Counted) => ({
      'main thread': Math.round(counted.main),
      'other threads (JIT compiler, GC)': Math.round(counted.others),
    });
    console.table({
      'bare node:http': row(baseline),
      [`bare node:http + netinfo's ${sample.headers.length} headers`]: row(withHeaders),
      netinfo: row(netinfo),
    });
    const ratio = baseline.main / netinfo.main;
    const target = scenario.instructionRatio;
    const judged = target === undefined ? '' : ` (target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'})`;
    console.log(
      `instruction ratio ${ratio.toFixed(2)}${judged} (baseline / netinfo, main thread, user space only); ` +
        `bare node:http with netinfo's headers: ${(baseline.main / withHeaders.main).toFixed(2)}\n`,
    );
    if (netinfo.answersMade) {
      console.log(
        `${netinfo.answersMade} json answers made anew during the counted requests (expired after a minute; compare counts at similar numbers)\n`,
      );
    }
    if (target !== undefined && ratio < target) process.exitCode = 1;
    return netinfo;
  } finally {
    for (const server of running) server.child.kill('SIGKILL');
    if (process.env.BENCH_KEEP_CALLGRIND) console.log(`callgrind files kept in ${dirs.join(' ')}`);
    else for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
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
