// First, before other modules load and the heap sees a full GC (see the module for why).
import './runtime/retain-next-tick-shape.ts';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { buildApp } from './app.ts';
import { type Config, loadConfigOrExit } from './config.ts';
import { clusterScrape } from './metrics/cluster.ts';
import { startMetricsListener } from './metrics/listener.ts';
import { prepareDirectory } from './storage/data-dir.ts';

// With WORKERS > 1 this process becomes a supervisor that forks the workers (they share the port
// through node:cluster) and restarts any that dies.

/** The pages a person opens first (`/api/v1` itself is no page). */
function startLine(url: string, workers?: number): string {
  const how = workers === undefined ? '' : ` with ${workers} workers`;
  return `netinfo listening on ${url}${how} (home page ${url}/, API reference ${url}/docs, API keys ${url}/dashboard)`;
}

function displayUrl(config: Config, port: number): string {
  const shown = config.host === '::' || config.host === '0.0.0.0' ? 'localhost' : config.host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

async function serve(config: Config): Promise<void> {
  prepareDirectory(config.dataDir, 'DATA_DIR');
  const app = await buildApp(config);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A machine without IPv6 cannot bind `::`; serve IPv4 rather than not at all.
    if (config.host !== '::' || (error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
    app.log.warn('IPv6 is unavailable on this machine; listening on 0.0.0.0 (IPv4 only)');
    await app.listen({ port: config.port, host: '0.0.0.0' });
  }
  if (cluster.isPrimary) {
    const address = app.server.address();
    const url = displayUrl(config, typeof address === 'object' && address ? address.port : config.port);
    console.log(startLine(url));
  }

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: no new connections, finishing in-flight requests');
    const grace = setTimeout(() => {
      app.log.warn({ graceMs: config.shutdownGraceMs }, 'grace period over; exiting with requests still open');
      process.exit(0);
    }, config.shutdownGraceMs);
    grace.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close('SIGTERM'));
  process.on('SIGINT', () => void close('SIGINT'));
}

async function supervise(config: Config): Promise<void> {
  // One listener for the whole machine's workers: a scrape sums their registries (metrics/cluster.ts).
  if (config.metricsPort !== 0) await startMetricsListener(config, clusterScrape());
  let stopping = false;
  let announced = false;
  let anyListened = false;
  let exitCode = 0;
  /** A worker that dies leaves, its replacement joins. */
  const listening = new Set<number>();
  // Without MESH_SECRET the workers still share measurements through Redis (a request may reach any
  // of them), under a key of this supervisor's making that no other machine has: a mesh of one node.
  const workerEnv = config.meshSecret === null ? { MESH_SECRET: randomBytes(32).toString('hex') } : {};
  const fork = () => cluster.fork(workerEnv);
  cluster.on('listening', (worker, address) => {
    // The resolver test's DNS sockets (RESOLVER_TEST_DNS_PORT) are reported here too, before the HTTP port.
    if (config.port !== 0 && address.port !== config.port) return;
    anyListened = true;
    listening.add(worker.id);
    // Announced once every worker listens, not when the first does: whoever waits for this line
    // (an operator, a test, a health check) would otherwise reach a service half started.
    if (announced || listening.size < config.workers) return;
    announced = true;
    const url = displayUrl(config, address.port);
    console.log(startLine(url, config.workers));
  });
  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (!anyListened) {
      // No worker has ever listened: the start itself failed (the worker printed why). As with one
      // process, exit 1, rather than start it again every second for ever.
      console.error(
        `netinfo could not start: worker ${worker.process.pid} exited (${signal ?? code}) before listening`,
      );
      exitCode = 1;
      stop('SIGTERM');
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    // Not once the supervisor is stopping: a worker forked then would never be told to stop.
    setTimeout(() => {
      if (!stopping) fork();
    }, 1000);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let index = 0; index < config.workers; index++) fork();
}

const config = loadConfigOrExit(1);
if (cluster.isPrimary && config.workers > 1) {
  await supervise(config).catch((error: Error) => {
    console.error(`netinfo could not start: ${error.message}`);
    process.exit(1);
  });
} else {
  await serve(config).catch((error: Error) => {
    // One line an operator can act on (the account database unreachable, the port taken), not a
    // stack trace; messages never carry the database password.
    console.error(`netinfo could not start: ${error.message}`);
    process.exit(1);
  });
}
