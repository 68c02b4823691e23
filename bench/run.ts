// `npm run bench [-- scenario ...]`: drives netinfo and a bare node:http baseline with the same
// load, in the same run, rounds interleaved so machine noise falls on both alike.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { freePort } from '../test/support/free-port.ts';
import { type ListeningProcess, startListeningProcess } from '../test/support/listening-process.ts';
import { serviceArguments } from '../test/support/start-command.ts';
import {
  CONNECTIONS,
  loadOptions,
  SCENARIOS,
  type Scenario,
  type ScenarioSetup,
  SERVICE_ENV,
  sampleAnswerBytes,
  waitUntilReady,
} from './scenarios.ts';
import { judge, median, planLine, type Round, roundLine } from './verdicts.ts';

/** A positive whole number from the environment, or the default; anything else stops the run. */
function countFromEnv(name: string, fallback: number): number {
  const text = process.env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9]\d*$/.test(text)) {
    console.error(`${name} must be a positive whole number, not "${text}"`);
    process.exit(2);
  }
  return Number(text);
}

const SECONDS = countFromEnv('BENCH_SECONDS', 10);
// Five rounds: on a shared VM single 10 s rounds of one run range from 0.5 to 0.9 of the baseline,
// and the median of three moved too much from run to run to judge a target by.
const ROUNDS = countFromEnv('BENCH_ROUNDS', 5);
const WARMUP_SECONDS = 3;

// With two or more cores, the load generator (this process) gets core 0 and every server core 1,
// so each server is measured on the same single core and the generator is not what limits it.
const PIN = availableParallelism() >= 2 && spawnSync('taskset', ['-pc', '0', String(process.pid)]).status === 0;

// BENCH_PROFILE=<dir> writes a V8 CPU profile of the netinfo process there (open it in Chrome's
// DevTools or read it with any .cpuprofile tool) to see where the time of a scenario goes.
const PROFILE_DIR = process.env.BENCH_PROFILE;

function start(script: string, env: Record<string, string>): Promise<ListeningProcess> {
  const profile = PROFILE_DIR && script === 'src/start.js' ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  // The service starts as `npm start` starts it (its V8 flags included).
  const entry = script === 'src/start.js' ? serviceArguments() : [script];
  const node = [process.execPath, ...profile, ...entry];
  const [command, ...args] = PIN ? ['taskset', '-c', '1', ...node] : node;
  return startListeningProcess(command as string, args, env, 'inherit');
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function loadWith(url: string, seconds: number, setup?: ScenarioSetup, pid?: number) {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
    // 50 connections each waiting for a batch of 1,000 answers queue for seconds on a busy machine:
    // autocannon's 10 s default made a slow round fail rather than measure it.
    timeout: 30,
    ...loadOptions(setup),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors (${result.timeouts} of them time-outs)`,
    );
  }
  // Server CPU per request does not depend on what else the machine is doing, unlike req/s.
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
}

/** Resident memory of a process (Linux), in MB. */
function residentMb(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

interface ScenarioResult {
  met: boolean;
  /** Median of the rounds' req/s ratios (netinfo / baseline). */
  ratio: number;
  rps: number;
  cpuUs: number;
}

async function runScenario(name: string, scenario: Scenario): Promise<ScenarioResult> {
  const prepared = await scenario.setup?.();
  if (prepared) console.log(`${name}: ${prepared.describe}`);
  const spawnedAt = performance.now();
  const service = await start('src/start.js', {
    ...SERVICE_ENV,
    METRICS_PORT: String(await freePort()),
    ...scenario.env,
    ...prepared?.env,
  });
  // The peak over the whole run (start-up included) is shown; the target is judged on each round's.
  let peakRss = 0;
  let roundPeakRss = 0;
  const sampler = setInterval(() => {
    const resident = residentMb(service.child.pid);
    peakRss = Math.max(peakRss, resident);
    roundPeakRss = Math.max(roundPeakRss, resident);
  }, 250);
  let bare: ListeningProcess | undefined;
  try {
    await waitUntilReady(service.url);
    const readyMs = performance.now() - spawnedAt;
    console.log(
      `  netinfo ready ${readyMs.toFixed(0)} ms after spawn, ${residentMb(service.child.pid).toFixed(0)} MB resident`,
    );
    await prepared?.verify?.(service.url);
    const bodyBytes = await sampleAnswerBytes(service.url, scenario, prepared);
    bare = await start('bench/bare-server.ts', { BARE_BODY_BYTES: String(bodyBytes) });
    console.log(`  bare node:http answers a fixed ${bodyBytes}-byte JSON body, as long as netinfo's`);
    const targets = prepared?.requests
      ? { baseline: bare.url, netinfo: service.url }
      : { baseline: `${bare.url}/`, netinfo: `${service.url}${scenario.path}` };
    const pids: Record<string, number | undefined> = {
      [targets.baseline]: bare.child.pid,
      [targets.netinfo]: service.child.pid,
    };
    const load = (url: string, seconds: number) => loadWith(url, seconds, prepared, pids[url]);
    for (const url of Object.values(targets)) await load(url, WARMUP_SECONDS);
    const rounds: Round[] = [];
    for (let index = 1; index <= ROUNDS; index++) {
      const baseline = await load(targets.baseline, SECONDS);
      roundPeakRss = residentMb(service.child.pid);
      const netinfo = await load(targets.netinfo, SECONDS);
      const round = { baseline, netinfo, netinfoPeakMb: Math.max(roundPeakRss, residentMb(service.child.pid)) };
      rounds.push(round);
      console.log(roundLine(index, round, scenario));
    }
    const summary = (key: 'baseline' | 'netinfo') => ({
      rps: median(rounds.map((r) => r[key].rps)),
      p50: median(rounds.map((r) => r[key].p50)),
      p99: median(rounds.map((r) => r[key].p99)),
      cpuUs: median(rounds.map((r) => r[key].cpuUs)),
    });
    const b = summary('baseline');
    const n = summary('netinfo');
    console.log(`\n${name} (${scenario.path}), ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s, medians:`);
    console.table({
      'bare node:http': {
        'req/s': Math.round(b.rps),
        'p50 ms': b.p50,
        'p99 ms': b.p99,
        'CPU µs/req': b.cpuUs.toFixed(1),
      },
      netinfo: { 'req/s': Math.round(n.rps), 'p50 ms': n.p50, 'p99 ms': n.p99, 'CPU µs/req': n.cpuUs.toFixed(1) },
    });
    const verdicts = judge(scenario, rounds);
    for (const verdict of verdicts) console.log(verdict.line);
    console.log(
      `CPU-time ratio ${(b.cpuUs / n.cpuUs).toFixed(2)} (baseline µs per request / netinfo's: the req/s ratio of a quiet machine)`,
    );
    if (scenario.rssUnderMb !== undefined) {
      console.log(`netinfo peak resident memory over the whole run, start-up included: ${peakRss.toFixed(0)} MB`);
    }
    const met = verdicts.every((verdict) => verdict.met);
    console.log('');
    const ratio = median(rounds.map((round) => round.netinfo.rps / round.baseline.rps));
    return { met, ratio, rps: n.rps, cpuUs: n.cpuUs };
  } finally {
    clearInterval(sampler);
    bare?.child.kill('SIGTERM');
    // Waited for, so a profile is written and ports are free before the next scenario starts.
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await prepared?.close();
  }
}

const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : Object.keys(SCENARIOS);
for (const name of names) {
  if (!SCENARIOS[name]) {
    console.error(`unknown scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
}
console.log(planLine({ scenarios: names, rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS }));
console.log(PIN ? 'load generator pinned to core 0, servers to core 1' : 'not pinned (needs taskset and 2 cores)');
let allMet = true;
const results = new Map<string, ScenarioResult>();
for (const name of names) {
  const result = await runScenario(name, SCENARIOS[name] as Scenario);
  results.set(name, result);
  allMet = result.met && allMet;
}

// Targets relative to another scenario of the same run (the same machine, the same minute), on medians.
for (const [name, result] of results) {
  const relative = SCENARIOS[name]?.relative;
  if (relative === undefined) continue;
  const other = results.get(relative.scenario);
  if (other === undefined) {
    console.log(
      `${name}: run it with ${relative.scenario} (npm run bench -- ${relative.scenario} ${name}) to judge its relative target`,
    );
    continue;
  }
  if (relative.ratioShare !== undefined) {
    const ok = result.ratio >= other.ratio * relative.ratioShare;
    console.log(
      `${name} median ratio ${result.ratio.toFixed(2)} vs ${relative.scenario} ${other.ratio.toFixed(2)} (target >= ${(relative.ratioShare * 100).toFixed(0)}% of it): ${ok ? 'met' : 'NOT met'}`,
    );
    allMet &&= ok;
  }
  if (relative.itemsPerRequest !== undefined && relative.cpuPerItemTimes !== undefined) {
    // Server CPU, not req/s: it does not move with what else the machine is doing.
    const perItem = result.cpuUs / relative.itemsPerRequest;
    const times = other.cpuUs / perItem;
    const ok = times >= relative.cpuPerItemTimes;
    console.log(
      `${name} ${perItem.toFixed(2)} µs of server CPU per item vs ${relative.scenario} ${other.cpuUs.toFixed(1)} µs per request (${times.toFixed(1)}x cheaper, target >= ${relative.cpuPerItemTimes}x): ${ok ? 'met' : 'NOT met'}`,
    );
    allMet &&= ok;
  }
}
process.exitCode = allMet ? 0 : 1;
