// `npm run bench:memory`: resident memory of the serving processes at the peak of the json
// scenario's load (50 connections, 1,000 clients through X-Forwarded-For), started as `npm start`
// starts them, beside a bare node:http server under the same load (issue 35):
// - the default data (what `npm install` gives: the embedded City and ASN data, no feed yet): <= 200 MB;
// - every security feed installed, as after a refresh: <= 260 MB;
// - WORKERS=4 against WORKERS=1 (both with Redis, which WORKERS > 1 needs): the total of every process
//   at most 1.6 times (skipped without redis-server).
// Each case is started BENCH_ROUNDS times (3) and its medians shown.
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { ipDataPaths } from '../src/ipinfo/data/data-files.ts';
import { freePort } from '../test/support/free-port.ts';
import { type ListeningProcess, startListeningProcess } from '../test/support/listening-process.ts';
import { findRedisServer, startRedis } from '../test/support/redis-server.ts';
import { serviceArguments } from '../test/support/start-command.ts';
import { jsonScenarioSetup } from './json-scenario.ts';
import type { ScenarioSetup } from './scenario-setup.ts';
import { CONNECTIONS, loadOptions, SERVICE_ENV, waitUntilReady } from './scenarios.ts';
import { median } from './verdicts.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Resident memory of the serving process, in MB: with WORKERS its worker threads are in it. Helper
 * processes (the tools' spawn helper, the data updater's child, which lives for seconds) are not
 * serving processes and are left out.
 */
function servingMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // gone
  }
}

/** The peak of the serving processes' resident memory over the load, sampled every 100 ms. */
async function peakUnderLoad(server: ListeningProcess, setup: ScenarioSetup): Promise<number> {
  let peak = servingMb(server.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, servingMb(server.pid));
  }, 100);
  try {
    const result = await autocannon({
      url: server.url.replace('localhost', '127.0.0.1'),
      connections: CONNECTIONS,
      duration: SECONDS,
      ...loadOptions(setup),
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, servingMb(server.pid));
}

async function service(setup: ScenarioSetup, env: Record<string, string>): Promise<ListeningProcess> {
  const started = await startListeningProcess(
    process.execPath,
    serviceArguments(),
    // Metrics on, as in production (and as `npm run bench` runs it), on a port of its own.
    { ...SERVICE_ENV, METRICS_PORT: String(await freePort()), ...setup.env, ...env },
    'inherit',
    // With WORKERS the supervisor prints its line once every worker listens.
    /listening on (http:\/\/\S+)/,
  );
  await waitUntilReady(started.url.replace('localhost', '127.0.0.1'));
  return started;
}

/** One start and load: resident memory once ready and at the peak. */
async function once(setup: ScenarioSetup, env: Record<string, string>): Promise<{ ready: number; peak: number }> {
  const server = await service(setup, env);
  try {
    return { ready: servingMb(server.pid), peak: await peakUnderLoad(server, setup) };
  } finally {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The median over BENCH_ROUNDS starts: a single start's peak moves by 10-20 MB with when the
 * garbage collector happens to run.
 */
async function measure(label: string, setup: ScenarioSetup, env: Record<string, string>): Promise<number> {
  const runs: { ready: number; peak: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) runs.push(await once(setup, env));
  const ready = median(runs.map((run) => run.ready));
  const peak = median(runs.map((run) => run.peak));
  const peaks = runs.map((run) => run.peak.toFixed(0)).join(', ');
  console.log(
    `  ${label}: ${ready.toFixed(0)} MB once ready, ${peak.toFixed(0)} MB at the peak of the load (peaks ${peaks})`,
  );
  return peak;
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
let allMet = true;
const setup = await jsonScenarioSetup();
// The default data: a DATA_DIR holding only the embedded data's caches (as after `npm install`).
const defaultDir = '.tmp/bench-memory-default';
rmSync(defaultDir, { recursive: true, force: true });
mkdirSync(path.dirname(ipDataPaths(defaultDir).embedded), { recursive: true });
cpSync(ipDataPaths(setup.env.DATA_DIR as string).embedded, ipDataPaths(defaultDir).embedded, { recursive: true });
try {
  console.log(`${setup.describe}; ${CONNECTIONS} connections, ${SECONDS} s per start, ${ROUNDS} starts per case\n`);
  const bare = await startListeningProcess(process.execPath, ['bench/bare-server.ts'], { BARE_BODY_BYTES: '900' });
  const barePeak = await peakUnderLoad(bare, setup).finally(() => bare.child.kill('SIGTERM'));
  console.log(`  bare node:http (the baseline): ${barePeak.toFixed(0)} MB at the peak of the same load`);
  const embedded = await measure('netinfo, default data', setup, { DATA_DIR: defaultDir });
  const feeds = await measure('netinfo, every feed', setup, {});
  console.log(`\ndefault data: peak ${embedded.toFixed(0)} MB (target <= 200): ${verdict(embedded <= 200)}`);
  console.log(`every feed: peak ${feeds.toFixed(0)} MB (target <= 260): ${verdict(feeds <= 260)}`);
  allMet = embedded <= 200 && feeds <= 260;
  if (findRedisServer() === null) {
    console.log('WORKERS=4 against WORKERS=1: skipped, redis-server is not installed');
  } else {
    const redis = await startRedis();
    try {
      const withRedis = { REDIS_URL: redis.url };
      const one = await measure('netinfo, WORKERS=1 with Redis', setup, { ...withRedis, WORKERS: '1' });
      const four = await measure('netinfo, WORKERS=4 with Redis', setup, { ...withRedis, WORKERS: '4' });
      const times = four / one;
      console.log(
        `WORKERS=4 ${four.toFixed(0)} MB = ${times.toFixed(2)}x WORKERS=1 (target <= 1.6x): ${verdict(times <= 1.6)}`,
      );
      allMet &&= times <= 1.6;
    } finally {
      await redis.stop();
    }
  }
} finally {
  await setup.close();
  rmSync(defaultDir, { recursive: true, force: true });
}
process.exitCode = allMet ? 0 : 1;
