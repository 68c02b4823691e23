// First, before other modules load and the heap sees a full GC (see the module for why).
import './runtime/retain-next-tick-shape.ts';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { isMainThread, Worker } from 'node:worker_threads';
import { type Config, loadConfigOrExit } from './config.ts';
import { ipDataPaths } from './ipinfo/data/data-files.ts';
import { workersScrape } from './metrics/cluster.ts';
import { startMetricsListener } from './metrics/listener.ts';
import { prepareDirectory } from './storage/data-dir.ts';
import { type WorkerLink, type WorkerStart, workerLink } from './workers/link.ts';
import { createSharedFiles } from './workers/shared-files.ts';
import { startSupervisor } from './workers/supervisor.ts';

// With WORKERS > 1 the main thread supervises that many worker threads, each the whole app serving
// the port (reusePort), all reading the databases from one shared copy (docs/scaling.md).

/**
 * Each worker's young generation is two semi-spaces of this size (npm start gives one process 16):
 * with 16, four workers held 32 MB of young generation each once ready and 780-820 MB in all at the
 * peak of the json load; with 4, 8 MB each and 710-780 MB. Scavenges then take about 1.8% of the time
 * instead of 0.8% (docs/performance.md, item 9).
 */
const WORKER_SEMI_SPACE_MB = 4;

/**
 * A worker's old generation at most (its live heap is about 32 MB once ready). V8 sizes its heap's
 * growth from this: four workers peaked at 726-759 MB in all under the json load with the default
 * (about 2 GB each), 653 MB at 1,024, 587-612 MB at 512, 583-596 MB at 256, with CPU per request
 * within the noise of the shared machine. A worker that runs out fails and is replaced.
 */
const WORKER_OLD_GENERATION_MB = 512;

/** The pages a person opens first (`/api/v1` itself is no page). */
function startLine(url: string, workers?: number): string {
  const how = workers === undefined ? '' : ` with ${workers} workers`;
  return `netinfo listening on ${url}${how} (home page ${url}/, API reference ${url}/docs, API keys ${url}/dashboard)`;
}

function displayUrl(config: Config, port: number): string {
  const shown = config.host === '::' || config.host === '0.0.0.0' ? 'localhost' : config.host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

async function serve(config: Config, link: WorkerLink | null): Promise<void> {
  prepareDirectory(config.dataDir, 'DATA_DIR');
  // Imported here, not above: a supervisor never loads the app (its modules' code is most of a heap).
  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config);
  const port = link?.port ?? config.port;
  // Fastify passes reusePort through to net.Server.listen; its types do not list it yet.
  const on = (host: string) => ({ port, host, reusePort: link !== null });
  try {
    await app.listen(on(config.host));
  } catch (error) {
    // A machine without IPv6 cannot bind `::`; serve IPv4 rather than not at all.
    if (config.host !== '::' || (error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
    app.log.warn('IPv6 is unavailable on this machine; listening on 0.0.0.0 (IPv4 only)');
    await app.listen(on('0.0.0.0'));
  }
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: no new connections, finishing in-flight requests');
    // In a worker thread, process.exit ends the thread only.
    const grace = setTimeout(() => {
      app.log.warn({ graceMs: config.shutdownGraceMs }, 'grace period over; exiting with requests still open');
      process.exit(0);
    }, config.shutdownGraceMs);
    grace.unref();
    await app.close();
    process.exit(0);
  };
  // Before the start is announced: whoever reads the line may stop the service at once (a signal
  // before the handler is there would end the process without closing it).
  if (link !== null) link.onClose(() => void close('supervisor'));
  else {
    process.on('SIGTERM', () => void close('SIGTERM'));
    process.on('SIGINT', () => void close('SIGINT'));
  }
  const address = app.server.address();
  const listened = typeof address === 'object' && address ? address.port : port;
  if (link === null) console.log(startLine(displayUrl(config, listened)));
  else link.listening(listened);
}

async function supervise(config: Config): Promise<void> {
  // Without MESH_SECRET the workers still share measurements through Redis (a request may reach any
  // of them), under a key of this supervisor's making that no other machine has: a mesh of one node.
  const env = {
    ...process.env,
    ...(config.meshSecret === null ? { MESH_SECRET: randomBytes(32).toString('hex') } : {}),
  };
  // The entry npm start runs: each worker turns on the compile cache before loading the app.
  const entry = new URL('./start.js', import.meta.url);
  const manifest = ipDataPaths(config.dataDir).manifest;
  // npm start's --max-semi-space-size is process-wide and outranks a Worker's resourceLimits; V8 reads
  // it as each isolate is made, so the workers made from now on get theirs, the supervisor keeps its own.
  setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
  const supervisor = startSupervisor({
    workers: config.workers,
    port: config.port,
    start: (port, refreshes) =>
      new Worker(entry, {
        env,
        workerData: { netinfoWorker: true, port, refreshes } satisfies WorkerStart,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
      }),
    files: createSharedFiles(),
    announce: (port) => console.log(startLine(displayUrl(config, port), config.workers)),
    error: (line) => console.error(line),
    exit: (code) => process.exit(code),
    manifestState: () =>
      stat(manifest).then(
        (info) => `${info.mtimeMs}:${info.size}`,
        () => 'missing',
      ),
  });
  // One listener for all the workers: a scrape sums their registries (metrics/cluster.ts).
  if (config.metricsPort !== 0) await startMetricsListener(config, workersScrape(supervisor.metrics));
  process.on('SIGTERM', () => supervisor.stop());
  process.on('SIGINT', () => supervisor.stop());
}

const config = loadConfigOrExit(1);
const link = workerLink();
if (isMainThread && config.workers > 1) {
  await supervise(config).catch((error: Error) => {
    console.error(`netinfo could not start: ${error.message}`);
    process.exit(1);
  });
} else if (link !== null) {
  // Thrown, not printed: the supervisor hears of it (the Worker's error event) and says why.
  await serve(config, link);
} else {
  await serve(config, null).catch((error: Error) => {
    // One line an operator can act on (the account database unreachable, the port taken), not a
    // stack trace; messages never carry the database password.
    console.error(`netinfo could not start: ${error.message}`);
    process.exit(1);
  });
}
