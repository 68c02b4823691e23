// `npm run bench:monitors [-- local | redis]`: 10,000 HTTP monitors at 60 s on one service process
// (as `npm start` runs it) against a local 200-answering server in its own process, with the
// in-process scheduler (SQLite) and with BullMQ (REDIS_URL). Over two full minutes after the
// creations' burst: how late runs start (started_at - due_at, read from the SQLite file), server
// CPU per run beside the CPU of a plain GET /api/v1/http to the same server, and memory per monitor
// (after a full GC) against the same process with none.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startListeningProcess } from '../test/support/listening-process.ts';
import { startRedis, type TestRedis } from '../test/support/redis-server.ts';
import { type ServiceProcess, startServiceProcess } from '../test/support/service-process.ts';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);
const INTERVAL_S = 60;
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? 120);
const CREATE_PARALLEL = 20;
const BASELINE_REQUESTS = Number(process.env.BENCH_BASELINE_REQUESTS ?? 3000);
// About as many checks at once as the monitors have under way.
const BASELINE_PARALLEL = 4;
// BENCH_PROFILE=<dir>: a V8 CPU profile of the service (written when it stops).
const PROFILE_DIR = process.env.BENCH_PROFILE;

const wanted = process.argv.slice(2);
const modes = (['local', 'redis'] as const).filter((mode) => wanted.length === 0 || wanted.includes(mode));

/** user + system CPU seconds of a process so far (Linux /proc; USER_HZ 100). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Heap used after a full GC, asked of the service through its inspector (opened on a port of its own). */
async function heapUsedAfterGc(service: ServiceProcess): Promise<number> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(service.output())?.[1];
  if (!url) throw new Error('the service did not open its inspector');
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<{ result?: { result?: { value?: unknown } } }>((resolve) => {
      const id = ++next;
      const listener = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data));
        if (message.id !== id) return;
        socket.removeEventListener('message', listener);
        resolve(message);
      };
      socket.addEventListener('message', listener);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.collectGarbage');
  const answer = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
  socket.close();
  return Number(answer.result?.result?.value);
}

async function memory(service: ServiceProcess, redis: Redis | null) {
  const heap = await heapUsedAfterGc(service);
  const rss = residentBytes(service.child.pid as number);
  if (!redis) return { heap, rss, redisUsed: 0, redisKeys: new Map<string, { keys: number; bytes: number }>() };
  const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  // Every key's own size (MEMORY USAGE), summed by its first three name parts: BullMQ's apart from the mesh's.
  const redisKeys = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = nextCursor;
    const sizes = await Promise.all(keys.map((key) => redis.memory('USAGE', key)));
    keys.forEach((key, i) => {
      const group = key.split(':').slice(0, 3).join(':');
      const entry = redisKeys.get(group) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += Number(sizes[i] ?? 0);
      redisKeys.set(group, entry);
    });
  } while (cursor !== '0');
  return { heap, rss, redisUsed: used, redisKeys };
}

async function inParallel(count: number, parallel: number, work: (index: number) => Promise<void>) {
  let nextIndex = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (nextIndex < count) await work(nextIndex++);
    }),
  );
}

/** An account made through the signup API, and an API key of it. */
async function apiKey(base: string): Promise<string> {
  const signup = await fetch(`${base}/api/v1/account/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'correct horse battery staple' }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const cookie = (signup.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const { csrf_token } = (await signup.json()) as { csrf_token: string };
  const created = await fetch(`${base}/api/v1/account/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf_token },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`key: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

interface Figures {
  createSeconds: number;
  lateness: { p50: number; p99: number; max: number; due: number; expected: number };
  states: Record<string, number>;
  causes: string[];
  runsInWindow: number;
  cpuPerRunUs: number;
  cpuPerCheckUs: number;
  cpuShare: number;
  zero: Awaited<ReturnType<typeof memory>>;
  windowStart: Awaited<ReturnType<typeof memory>>;
  end: Awaited<ReturnType<typeof memory>>;
}

/** What the SQLite file holds about the window: lateness of the runs due in it, runs started in it. */
function readRuns(file: string, from: number, to: number) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const due = db
      .prepare('SELECT started_at - due_at AS late FROM monitor_runs WHERE due_at >= ? AND due_at < ? ORDER BY late')
      .all(from, to)
      .map((row) => Number(row.late));
    // Each monitor's slots in the window, from its first due time (its creation): runs never made count too.
    let expected = 0;
    for (const row of db.prepare('SELECT MIN(due_at) AS first FROM monitor_runs GROUP BY monitor_id').all()) {
      const first = Number(row.first);
      const k0 = Math.max(0, Math.ceil((from - first) / (INTERVAL_S * 1000)));
      for (let at = first + k0 * INTERVAL_S * 1000; at < to; at += INTERVAL_S * 1000) expected++;
    }
    const states: Record<string, number> = {};
    for (const row of db
      .prepare('SELECT state, COUNT(*) AS n FROM monitor_runs WHERE started_at >= ? AND started_at < ? GROUP BY state')
      .all(from, to)) {
      states[String(row.state)] = Number(row.n);
    }
    const causes = db
      .prepare(
        `SELECT cause, COUNT(*) AS n FROM monitor_runs WHERE started_at >= ? AND started_at < ? AND cause IS NOT NULL
         GROUP BY cause ORDER BY n DESC LIMIT 3`,
      )
      .all(from, to)
      .map((row) => `${row.n} x ${row.cause}`);
    return { due, expected, states, causes, started: Object.values(states).reduce((sum, n) => sum + n, 0) };
  } finally {
    db.close();
  }
}

async function bench(mode: 'local' | 'redis', target: string, redisServer: TestRedis | null): Promise<Figures> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'netinfo-bench-monitors-'));
  const flags = ['--inspect=127.0.0.1:0', ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])];
  const service = await startServiceProcess({
    DATA_DIR: dataDir,
    NODE_OPTIONS: flags.join(' '),
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
    MONITOR_LIMITS: 'free=20000,pro=20000',
    // 10,000 creations and the baseline's requests from one key within an hour.
    RATE_LIMITS: 'free=1000000/1000000',
    ...(redisServer ? { REDIS_URL: redisServer.url } : {}),
  });
  const redis = redisServer ? new Redis(redisServer.url) : null;
  try {
    const base = service.url;
    const key = await apiKey(base);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const check = async () => {
      const response = await fetch(`${base}/api/v1/http?url=${encodeURIComponent(target)}`, { headers });
      if (response.status !== 200) throw new Error(`GET /api/v1/http: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    await inParallel(500, BASELINE_PARALLEL, check);
    const baselineCpu = cpuSeconds(service.child.pid as number);
    await inParallel(BASELINE_REQUESTS, BASELINE_PARALLEL, check);
    const cpuPerCheckUs = ((cpuSeconds(service.child.pid as number) - baselineCpu) * 1e6) / BASELINE_REQUESTS;
    await sleep(2000);
    const zero = await memory(service, redis);

    const startedAt = Date.now();
    await inParallel(MONITORS, CREATE_PARALLEL, async (i) => {
      const response = await fetch(`${base}/api/v1/monitors`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: `bench ${i}`,
          type: 'http',
          target,
          interval_seconds: INTERVAL_S,
          conditions: { status_not: [200] },
        }),
      });
      if (response.status !== 201)
        throw new Error(`POST /api/v1/monitors: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    });
    const createdAt = Date.now();
    console.log(`${mode}: ${MONITORS} monitors created in ${((createdAt - startedAt) / 1000).toFixed(1)} s`);
    // The window opens once every monitor has been created and the first created is in its second minute.
    await sleep(Math.max(0, startedAt + INTERVAL_S * 1000 - Date.now()) + 2000);
    const windowStart = await memory(service, redis);
    const from = Date.now();
    const cpuFrom = cpuSeconds(service.child.pid as number);
    await sleep(WINDOW_S * 1000);
    const to = Date.now();
    const cpu = cpuSeconds(service.child.pid as number) - cpuFrom;
    const end = await memory(service, redis);
    // Runs due at the window's end are recorded a moment later.
    await sleep(5000);
    const runs = readRuns(path.join(dataDir, 'netinfo.db'), from, to);
    const sorted = runs.due;
    return {
      createSeconds: (createdAt - startedAt) / 1000,
      lateness: {
        p50: quantile(sorted, 0.5) ?? Number.NaN,
        p99: quantile(sorted, 0.99) ?? Number.NaN,
        max: sorted.at(-1) ?? Number.NaN,
        due: sorted.length,
        expected: runs.expected,
      },
      states: runs.states,
      causes: runs.causes,
      runsInWindow: runs.started,
      cpuPerRunUs: (cpu * 1e6) / runs.started,
      cpuPerCheckUs,
      cpuShare: cpu / ((to - from) / 1000),
      zero,
      windowStart,
      end,
    };
  } finally {
    redis?.disconnect();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(2);
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

function report(mode: string, f: Figures) {
  const l = f.lateness;
  console.log(
    `\n${mode}: ${MONITORS} HTTP monitors at ${INTERVAL_S} s, window ${WINDOW_S} s (created in ${f.createSeconds.toFixed(1)} s)`,
  );
  console.table({
    'start late ms (started_at - due_at)': {
      p50: l.p50,
      p99: l.p99,
      max: l.max,
      note: `${l.due} runs due in the window of ${l.expected} slots; target p99 < 1000: ${l.p99 < 1000 && l.due >= l.expected ? 'met' : 'NOT met'}`,
    },
  });
  console.table({
    'server CPU µs per run': { value: f.cpuPerRunUs.toFixed(0), note: `${f.runsInWindow} runs started in the window` },
    'server CPU µs per GET /api/v1/http (baseline)': { value: f.cpuPerCheckUs.toFixed(0), note: '' },
    'server CPU share over the window': { value: `${(f.cpuShare * 100).toFixed(1)}%`, note: 'of one core' },
  });
  console.log('run states in the window:', JSON.stringify(f.states), f.causes.join('; '));
  const per = (a: number, b: number) => kb((a - b) / MONITORS);
  const memoryRow = (m: Figures['zero']) => ({
    'heap used MB (after GC)': mb(m.heap),
    'resident MB': mb(m.rss),
    'Redis used_memory MB': mb(m.redisUsed),
  });
  console.table({
    'no monitors': memoryRow(f.zero),
    'window start': memoryRow(f.windowStart),
    'window end': memoryRow(f.end),
    'KB per monitor (window start - none)': {
      'heap used MB (after GC)': per(f.windowStart.heap, f.zero.heap),
      'resident MB': per(f.windowStart.rss, f.zero.rss),
      'Redis used_memory MB': per(f.windowStart.redisUsed, f.zero.redisUsed),
    },
    'KB per monitor (window end - none)': {
      'heap used MB (after GC)': per(f.end.heap, f.zero.heap),
      'resident MB': per(f.end.rss, f.zero.rss),
      'Redis used_memory MB': per(f.end.redisUsed, f.zero.redisUsed),
    },
  });
  if (f.end.redisKeys.size > 0) {
    console.log('Redis keys at the window end, by prefix (MEMORY USAGE of each key):');
    console.table(
      Object.fromEntries(
        [...f.end.redisKeys].map(([group, { keys, bytes }]) => [
          group,
          { keys, MB: mb(bytes), 'KB per monitor': kb(bytes / MONITORS) },
        ]),
      ),
    );
  }
}

const fake = await startListeningProcess(process.execPath, ['bench/bare-server.ts'], {});
const redisServer = modes.includes('redis') ? await startRedis() : null;
try {
  for (const mode of modes) {
    const figures = await bench(mode, `${fake.url}/`, mode === 'redis' ? redisServer : null);
    report(mode === 'local' ? 'without Redis (in-process scheduler)' : 'REDIS_URL (BullMQ job schedulers)', figures);
  }
} finally {
  // SIGKILL: on SIGTERM it waits for the checker's idle connections to close.
  fake.child.kill('SIGKILL');
  await redisServer?.stop();
}
