import { stat } from 'node:fs/promises';
import type { ReadinessCheck } from '../../health/readiness.ts';
import { describeAges, describeSources, staleSources } from './data-sources.ts';
import type { IpData } from './ip-data.ts';

export interface IpDataLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface IpDataStore {
  /** The snapshot requests use; undefined until the first load finishes. */
  readonly current: IpData | undefined;
  /** Starts the first load (once) and resolves with it. */
  loaded(): Promise<IpData>;
  /** Loads everything again and swaps it in; on failure the current snapshot stays. */
  reload(reason: string): Promise<void>;
  readonly readinessCheck: ReadinessCheck;
  /** Stops watching, and resolves once a load under way has ended (it writes caches into DATA_DIR). */
  close(): Promise<void>;
}

export interface IpDataStoreOptions {
  load: (previous: IpData | undefined) => Promise<IpData>;
  /** The file whose change means new data was installed (the updater's manifest). */
  watchFile: string;
  /** How often to look at watchFile; a stat of one file, so it can be frequent. */
  watchIntervalMs: number;
  log: IpDataLog;
}

/**
 * Holds the current IP data and replaces it whole. Loading builds a complete new snapshot beside
 * the old one; only then is the one reference swapped (a single assignment on the one JS
 * thread), so a request either sees the old snapshot or the new one, never a half-loaded state.
 * New data arrives through the updater's manifest: when its modification time or size changes,
 * the store reloads. (Polling rather than fs.watch, which misses renames on some filesystems
 * and container volumes.)
 */
export function createIpDataStore(options: IpDataStoreOptions): IpDataStore {
  let current: IpData | undefined;
  let first: Promise<IpData> | undefined;
  let firstError: string | undefined;
  let lastReloadError: string | undefined;
  let reloading: Promise<void> = Promise.resolve();
  let watched: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const manifestState = () =>
    stat(options.watchFile).then(
      (info) => `${info.mtimeMs}:${info.size}`,
      () => 'missing',
    );

  function startWatching(): void {
    if (timer !== undefined || closed) return;
    timer = setInterval(async () => {
      const state = await manifestState();
      if (watched !== undefined && state !== watched) {
        watched = state;
        await reload('new data was installed');
      }
    }, options.watchIntervalMs);
    timer.unref();
  }

  function loaded(): Promise<IpData> {
    if (first === undefined) {
      const started = performance.now();
      first = (async () => {
        watched = await manifestState();
        startWatching();
        try {
          current = await options.load(undefined);
        } catch (error) {
          firstError = (error as Error).message;
          options.log.error({ err: error }, 'IP data failed to load');
          throw error;
        }
        const ms = Math.round(performance.now() - started);
        options.log.info({ ms, loaded: descriptions(current) }, 'IP data loaded');
        for (const repair of current.repairs ?? []) options.log.warn({ repair }, 'IP data cache repaired');
        for (const problem of current.problems) options.log.warn({ problem }, 'IP data problem');
        return current;
      })();
    }
    return first;
  }

  async function reload(reason: string): Promise<void> {
    // One load at a time, the first one included; a second request waits for the one under way and
    // then loads again. A reload beside a first load still reading the old files would finish first
    // and be overwritten by it: a worker thread kept the old data after an update that way.
    const under = first === undefined ? reloading : Promise.allSettled([first, reloading]);
    const next = under.then(async () => {
      if (closed) return;
      // What this load will see: the watcher then does not load the same manifest again.
      watched = await manifestState();
      try {
        const fresh = await options.load(current);
        current = fresh;
        lastReloadError = undefined;
        options.log.info({ reason, loaded: descriptions(fresh) }, 'IP data reloaded');
        for (const repair of fresh.repairs ?? []) options.log.warn({ repair }, 'IP data cache repaired');
        for (const problem of fresh.problems) options.log.warn({ problem }, 'IP data problem');
      } catch (error) {
        lastReloadError = (error as Error).message;
        options.log.error({ err: error, reason }, 'IP data reload failed; the previous data stays in use');
      }
    });
    reloading = next;
    return next;
  }

  return {
    get current() {
      return current;
    },
    loaded,
    reload,
    readinessCheck: () => {
      if (current === undefined) {
        if (firstError !== undefined) return { state: 'degraded', detail: `not loaded: ${firstError}` };
        // An app that never listens (built for app.inject) loads on its first /json request
        // instead; a listening server starts loading as it starts listening, before any probe.
        if (first === undefined) return { state: 'ready', detail: 'not loaded yet: loads on the first request' };
        return { state: 'starting', detail: 'loading' };
      }
      const notes = [
        ...current.problems,
        ...staleSources(current.sources, Date.now()),
        ...(lastReloadError ? [`last reload failed: ${lastReloadError}`] : []),
      ];
      const summary = describeSources(current.sources)
        .map((line) => `${line.part}: ${line.description}`)
        .join('; ');
      const feeds =
        current.feedsLoaded.size === 0
          ? '; no security feeds yet (the refresh or npm run data:update installs them)'
          : '';
      const ages = ` | ages: ${describeAges(current.sources, Date.now())}`;
      if (notes.length > 0) return { state: 'degraded', detail: `${notes.join('; ')} | ${summary}${feeds}${ages}` };
      return { state: 'ready', detail: `${summary}${feeds}${ages}` };
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      await Promise.allSettled([first, reloading]);
    },
  };
}

function descriptions(data: IpData): string[] {
  return describeSources(data.sources).map((line) => line.description);
}
