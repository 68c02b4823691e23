// `node bench/fd-reserve.ts`: issue 28, item 9. N concurrent /api/v1/ssl?protocols=true checks, each of
// its own silent server (a loopback port that accepts and never speaks) and from its own client
// address (127.0.<i>.<j>, so per-client caps do not hide the global one), against the service run
// with a small open-files limit (`ulimit -n`, both soft and hard, so Node cannot raise it). While they
// hang, the bench samples the server's open descriptors (/proc/<pid>/fd) and times /healthz every
// 50 ms from another address. Baseline in the same run: the same service from BASELINE_TREE (a
// checkout of the code before the caps, e.g. `git worktree add ../before 139214f`); then this tree.
//   BENCH_N (default 600) checks, BENCH_NOFILE (default 2048) the child's limit, BENCH_HOLD_MS (default
//   5000) TLS_TIMEOUT_MS, i.e. how long each check hangs. Loopback only; bounded in count and time.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/free-port.ts';
import { NO_DOWNLOADS_ENV } from '../test/support/no-downloads.ts';
import { baselineAndThisTree } from './baseline-tree.ts';

const N = Number(process.env.BENCH_N ?? 600);
const NOFILE = Number(process.env.BENCH_NOFILE ?? 2048);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 5000);
const TREES = baselineAndThisTree();

/** Silent listeners, one per check (identical checks in flight share one), all on 127.0.0.1. */
async function startSilentServers(count: number) {
  const sockets = new Set<net.Socket>();
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.resume();
        socket.on('error', () => {});
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  return {
    ports: servers.map((server) => (server.address() as net.AddressInfo).port),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

function get(
  url: string,
  localAddress: string,
  timeoutMs: number,
): Promise<{ status: number | 'error'; ms: number; reason?: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get(url, { localAddress, agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: 'error', ms: performance.now() - started, reason: error.code ?? error.message }),
    );
  });
}

async function startService(root: string, port: number, silentPort: number): Promise<ChildProcess> {
  const child = spawn(
    '/bin/sh',
    ['-c', `ulimit -n ${NOFILE} && exec "$0" "$@"`, process.execPath, path.join(root, 'src/server.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        ...NO_DOWNLOADS_ENV,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
        DATA_DIR: `/tmp/netinfo-fd-bench-${path.basename(root)}`,
        DNS_SERVERS: '127.0.0.1:9',
        METRICS_PORT: '0',
        ALLOW_PRIVATE_TARGETS: 'true',
        TLS_CHECK_PORT: String(silentPort),
        TLS_TIMEOUT_MS: String(HOLD_MS),
        RATE_LIMITS: 'public=1000000/1000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await get(`http://127.0.0.1:${port}/healthz`, '127.0.0.1', 1000);
    if (answer.status === 200) return child;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service in ${root} did not start`);
    await sleep(200);
  }
}

function openDescriptors(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const rows: Record<string, Record<string, string | number>> = {};
const silent = await startSilentServers(N);
try {
  for (const tree of TREES) {
    const port = await freePort();
    const child = await startService(tree.root, port, silent.ports[0] as number);
    const pid = child.pid as number;
    const idle = openDescriptors(pid);
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, openDescriptors(pid));
        await sleep(25);
      }
    })();
    const health: { status: number | 'error'; ms: number; reason?: string }[] = [];
    const prober = (async () => {
      while (sampling) {
        health.push(await get(`http://127.0.0.1:${port}/healthz`, '127.0.0.2', 2000));
        await sleep(50);
      }
    })();
    const started = performance.now();
    const checks = await Promise.all(
      silent.ports.map((silentPort, index) =>
        get(
          `http://127.0.0.1:${port}/api/v1/ssl?host=127.0.0.1&port=${silentPort}&protocols=true`,
          `127.0.${10 + Math.floor(index / 250)}.${1 + (index % 250)}`,
          HOLD_MS + 10_000,
        ),
      ),
    );
    const elapsed = performance.now() - started;
    sampling = false;
    await Promise.all([sampler, prober]);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    const statuses: Record<string, number> = {};
    for (const check of checks) {
      const key = check.status === 'error' ? `error ${check.reason}` : String(check.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    const answered = health.filter((probe) => probe.status === 200).map((probe) => probe.ms);
    rows[`${tree.name} (${tree.root})`] = {
      'fd idle': idle,
      'fd peak': peak,
      '/healthz probes': health.length,
      '/healthz failed': health.length - answered.length,
      '/healthz failures': [...new Set(health.flatMap((probe) => (probe.reason ? [probe.reason] : [])))].join(' '),
      '/healthz p50 ms': Number(percentile(answered, 50).toFixed(1)),
      '/healthz p95 ms': Number(percentile(answered, 95).toFixed(1)),
      '/healthz max ms': Number(Math.max(...answered).toFixed(1)),
      '/ssl answers': Object.entries(statuses)
        .map(([status, count]) => `${count}x ${status}`)
        .join(', '),
      'all answered in s': Number((elapsed / 1000).toFixed(1)),
    };
  }
} finally {
  await silent.close();
}
console.log(
  `${N} concurrent /api/v1/ssl?protocols=true checks of silent loopback servers, service under ulimit -n ${NOFILE}, TLS_TIMEOUT_MS=${HOLD_MS}:`,
);
console.table(rows);
