// `npm run bench [-- scenario ...]`: drives netinfo and a bare node:http baseline with the same
// load, in the same run, rounds interleaved so machine noise falls on both alike.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const repoRoot = path.resolve(import.meta.dirname, '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 3;

interface Scenario {
  path: string;
  /** The share of the baseline's req/s the issue targets. */
  target: number;
  env?: Record<string, string>;
}

const SCENARIOS: Record<string, Scenario> = {
  ipv6: { path: '/api/v1/ipv6', target: 0.7 },
};

interface Started {
  url: string;
  child: ChildProcess;
}

// With two or more cores, the load generator (this process) gets core 0 and every server core 1,
// so each server is measured on the same single core and the generator is not what limits it.
const PIN = availableParallelism() >= 2 && spawnSync('taskset', ['-pc', '0', String(process.pid)]).status === 0;

function start(script: string, env: Record<string, string>): Promise<Started> {
  const [command, args] = PIN ? ['taskset', ['-c', '1', process.execPath, script]] : [process.execPath, [script]];
  const child = spawn(command as string, args as string[], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = /http:\/\/[^\s/]+/.exec(output);
      if (match) resolve({ url: match[0].replace('localhost', '127.0.0.1'), child });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

async function load(url: string, seconds: number) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function runScenario(name: string, scenario: Scenario): Promise<boolean> {
  const bare = await start('bench/bare-server.ts', {});
  const service = await start('src/server.ts', {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: '.tmp/bench-data',
    // Limiting stays on (every request is counted) but never refuses during the run.
    RATE_LIMITS: 'public=1000000000/1000000000',
    ...scenario.env,
  });
  try {
    const targets = { baseline: `${bare.url}/`, netinfo: `${service.url}${scenario.path}` };
    for (const url of Object.values(targets)) await load(url, WARMUP_SECONDS);
    const rounds: { baseline: Awaited<ReturnType<typeof load>>; netinfo: Awaited<ReturnType<typeof load>> }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const baseline = await load(targets.baseline, SECONDS);
      const netinfo = await load(targets.netinfo, SECONDS);
      rounds.push({ baseline, netinfo });
      console.log(
        `  round ${round}: baseline ${baseline.rps.toFixed(0)} req/s, netinfo ${netinfo.rps.toFixed(0)} req/s (ratio ${(netinfo.rps / baseline.rps).toFixed(2)})`,
      );
    }
    const summary = (key: 'baseline' | 'netinfo') => ({
      rps: median(rounds.map((r) => r[key].rps)),
      p50: median(rounds.map((r) => r[key].p50)),
      p99: median(rounds.map((r) => r[key].p99)),
    });
    const b = summary('baseline');
    const n = summary('netinfo');
    const ratio = n.rps / b.rps;
    console.log(`\n${name} (${scenario.path}), ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s, medians:`);
    console.table({
      'bare node:http': { 'req/s': Math.round(b.rps), 'p50 ms': b.p50, 'p99 ms': b.p99 },
      netinfo: { 'req/s': Math.round(n.rps), 'p50 ms': n.p50, 'p99 ms': n.p99 },
    });
    const met = ratio >= scenario.target;
    console.log(`ratio ${ratio.toFixed(2)} (target >= ${scenario.target}): ${met ? 'met' : 'NOT met'}\n`);
    return met;
  } finally {
    bare.child.kill('SIGTERM');
    service.child.kill('SIGTERM');
  }
}

console.log(PIN ? 'load generator pinned to core 0, servers to core 1' : 'not pinned (needs taskset and 2 cores)');
const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : Object.keys(SCENARIOS);
let allMet = true;
for (const name of names) {
  const scenario = SCENARIOS[name];
  if (!scenario) {
    console.error(`unknown scenario "${name}"; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
  allMet = (await runScenario(name, scenario)) && allMet;
}
process.exitCode = allMet ? 0 : 1;
