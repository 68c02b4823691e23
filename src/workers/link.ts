import { parentPort, workerData } from 'node:worker_threads';

/** What the supervisor tells a worker thread (supervisor.ts sends these). */
export type ToWorker =
  | { type: 'close' }
  | { type: 'reload' }
  | { type: 'bytes'; id: number; bytes?: SharedArrayBuffer; error?: string }
  | { type: 'metrics'; id: number };

/** What a worker thread tells the supervisor. */
export type FromWorker =
  | { type: 'listening'; port: number }
  | { type: 'read'; id: number; file: string }
  | { type: 'installed' }
  | { type: 'holding'; keys: string[] }
  | { type: 'metrics'; id: number; metrics: unknown[] };

/** What the supervisor gives each worker thread it starts. */
export interface WorkerStart {
  readonly netinfoWorker: true;
  /** The port to listen on: the first worker's when PORT=0. */
  readonly port: number;
  /** This worker runs the data refresh (DATA_REFRESH_HOURS) for all: one at a time. */
  readonly refreshes: boolean;
}

/** A worker thread's side of its supervisor (WORKERS > 1): one per thread, null in the main thread. */
export interface WorkerLink {
  readonly port: number;
  readonly refreshes: boolean;
  /** A data file's bytes: the supervisor's one shared copy (shared-files.ts). */
  readBytes(file: string): Promise<Buffer>;
  listening(port: number): void;
  /** This worker's refresh installed new data: the supervisor tells every worker to reload. */
  installed(): void;
  /** The stamp keys of the files this worker's current data was read from: the others can be freed. */
  holding(keys: string[]): void;
  onClose(handler: () => void): void;
  onReload(handler: () => void): void;
  answerMetrics(collect: () => Promise<unknown[]>): void;
}

let link: WorkerLink | null | undefined;

export function workerLink(): WorkerLink | null {
  if (link === undefined) link = (workerData as Partial<WorkerStart> | null)?.netinfoWorker ? connect() : null;
  return link;
}

function connect(): WorkerLink {
  const port = parentPort as NonNullable<typeof parentPort>;
  const start = workerData as WorkerStart;
  const send = (message: FromWorker) => port.postMessage(message);
  const reads = new Map<number, { resolve: (bytes: Buffer) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  // Until serve() listens, a close ends the thread at once, as a signal ends a process still starting.
  let close: () => void = () => process.exit(0);
  let reload = () => {};
  let collect = async (): Promise<unknown[]> => [];
  port.on('message', (message: ToWorker) => {
    if (message.type === 'close') close();
    else if (message.type === 'reload') reload();
    else if (message.type === 'metrics') {
      void collect().then((metrics) => send({ type: 'metrics', id: message.id, metrics }));
    } else {
      const waiting = reads.get(message.id);
      reads.delete(message.id);
      if (message.bytes) waiting?.resolve(Buffer.from(message.bytes));
      else waiting?.reject(new Error(message.error ?? 'not read'));
    }
  });
  return {
    port: start.port,
    refreshes: start.refreshes,
    readBytes: (file) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        reads.set(id, { resolve, reject });
        send({ type: 'read', id, file });
      }),
    listening: (listeningPort) => send({ type: 'listening', port: listeningPort }),
    installed: () => send({ type: 'installed' }),
    holding: (keys) => send({ type: 'holding', keys }),
    onClose: (handler) => {
      close = handler;
    },
    onReload: (handler) => {
      reload = handler;
    },
    answerMetrics: (handler) => {
      collect = handler;
    },
  };
}
