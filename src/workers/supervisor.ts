import type { EventEmitter } from 'node:events';
import type { FromWorker, ToWorker } from './link.ts';
import type { SharedFiles } from './shared-files.ts';

/** A worker thread as the supervisor sees it (a node:worker_threads Worker; a test passes its own). */
export interface WorkerHandle extends EventEmitter {
  readonly threadId: number;
  postMessage(message: ToWorker): void;
}

export interface SupervisorOptions {
  workers: number;
  /** PORT: 0 starts one worker first and the others on the port it was given. */
  port: number;
  /** `refreshes`: the worker runs the data refresh; one does at a time. */
  start: (port: number, refreshes: boolean) => WorkerHandle;
  files: SharedFiles;
  /** Told the port once every worker listens (never before, never twice). */
  announce: (port: number) => void;
  error: (line: string) => void;
  exit: (code: number) => void;
  /** The updater's manifest as it is now: when it changes, every worker reloads at once. */
  manifestState: () => Promise<string>;
  restartDelayMs?: number;
  watchIntervalMs?: number;
}

export interface Supervisor {
  /** Tells every worker to close gracefully; exits once all have ended. */
  stop(): void;
  /** Every worker's registry as JSON (metrics/cluster.ts sums them). */
  metrics(): Promise<unknown[][]>;
}

const SCRAPE_TIMEOUT_MS = 5_000;

/**
 * Starts WORKERS worker threads, each serving the port (reusePort: the kernel spreads the
 * connections), reading its data files through the supervisor's shared copies, and replaces any that
 * dies unexpectedly after a second.
 */
export function startSupervisor(options: SupervisorOptions): Supervisor {
  const live = new Set<WorkerHandle>();
  const listening = new Set<WorkerHandle>();
  const scrapes = new Map<number, { worker: WorkerHandle; answer: (metrics: unknown[]) => void }>();
  const holding = new Map<WorkerHandle, string[]>();
  const release = () => options.files.retain(new Set([...holding.values()].flat()));
  let port = options.port;
  let stopping = false;
  let announced = false;
  let anyListened = false;
  let exitCode = 0;
  let nextScrape = 0;
  let watched: string | undefined;
  let refresher: WorkerHandle | undefined;

  const broadcast = (message: ToWorker) => {
    for (const worker of live) worker.postMessage(message);
  };
  const reloadAll = async () => {
    watched = await options.manifestState();
    broadcast({ type: 'reload' });
  };
  const watcher = setInterval(async () => {
    const state = await options.manifestState();
    if (watched !== undefined && state !== watched) await reloadAll();
    else watched = state;
  }, options.watchIntervalMs ?? 1000);
  watcher.unref();

  const read = (worker: WorkerHandle, id: number, file: string) =>
    options.files.read(file).then(
      (bytes) => worker.postMessage({ type: 'bytes', id, bytes }),
      (error: Error) => worker.postMessage({ type: 'bytes', id, error: error.message }),
    );

  const spawn = () => {
    const worker = options.start(port, refresher === undefined);
    refresher ??= worker;
    live.add(worker);
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'read') void read(worker, message.id, message.file);
      else if (message.type === 'installed') void reloadAll();
      else if (message.type === 'metrics') scrapes.get(message.id)?.answer(message.metrics);
      else if (message.type === 'holding') {
        holding.set(worker, message.keys);
        release();
      } else onListening(worker, message.port);
    });
    worker.on('error', (error: Error) => {
      options.error(
        anyListened
          ? `worker ${worker.threadId} failed: ${error.message}`
          : `netinfo could not start: ${error.message}`,
      );
    });
    worker.on('exit', (code: number) => onExit(worker, code));
  };

  const onListening = (worker: WorkerHandle, workerPort: number) => {
    const first = !anyListened;
    anyListened = true;
    listening.add(worker);
    if (first && port === 0) {
      port = workerPort;
      for (let index = 1; index < options.workers; index++) spawn();
    }
    // Announced once every worker listens, not when the first does: whoever waits for this line
    // (an operator, a test, a health check) would otherwise reach a service half started.
    if (announced || listening.size < options.workers) return;
    announced = true;
    options.announce(port);
  };

  const onExit = (worker: WorkerHandle, code: number) => {
    live.delete(worker);
    listening.delete(worker);
    holding.delete(worker);
    if (refresher === worker) refresher = undefined;
    // A scrape under way counts what the live workers say.
    for (const scrape of scrapes.values()) if (scrape.worker === worker) scrape.answer([]);
    if (stopping) {
      if (live.size === 0) finish();
      return;
    }
    if (!anyListened) {
      // No worker has ever listened: the start itself failed. As with one process, exit 1, rather
      // than start it again every second for ever.
      options.error(`netinfo could not start: worker ${worker.threadId} exited (${code}) before listening`);
      exitCode = 1;
      stop();
      return;
    }
    options.error(`worker ${worker.threadId} exited (${code}); starting another`);
    // Not once the supervisor is stopping: a worker started then would never be told to stop.
    setTimeout(() => {
      if (!stopping) spawn();
    }, options.restartDelayMs ?? 1000);
  };

  const finish = () => {
    clearInterval(watcher);
    options.exit(exitCode);
  };

  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (live.size === 0) finish();
    broadcast({ type: 'close' });
  };

  const collect = (worker: WorkerHandle) =>
    new Promise<unknown[]>((resolve, reject) => {
      const id = nextScrape++;
      const timer = setTimeout(() => {
        scrapes.delete(id);
        reject(new Error(`worker ${worker.threadId} did not answer within ${SCRAPE_TIMEOUT_MS} ms`));
      }, SCRAPE_TIMEOUT_MS);
      const answer = (metrics: unknown[]) => {
        clearTimeout(timer);
        scrapes.delete(id);
        resolve(metrics);
      };
      scrapes.set(id, { worker, answer });
      worker.postMessage({ type: 'metrics', id });
    });

  if (port === 0) spawn();
  else for (let index = 0; index < options.workers; index++) spawn();
  return {
    stop,
    metrics: () => Promise.all([...live].map(collect)),
  };
}
