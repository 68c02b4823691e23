import type { FastifyInstance } from 'fastify';
import type { AbuseService } from '../abuse/service.ts';
import type { Resolver } from '../dns/resolver.ts';
import { workerLink } from '../workers/link.ts';
import { createHostnameLookup, type HostnameLookup, queuedHostnameLookup } from './answers/hostname.ts';
import { createIpAnswers, type IpAnswers } from './answers/ip-answers.ts';
import { ipDataPaths, type SourceId } from './data/data-files.ts';
import { type KeptParts, loadIpData } from './data/ip-data.ts';
import { createIpDataStore, type IpDataLog, type IpDataStore } from './data/ip-data-store.ts';
import { type DownloadOutcome, scheduleDataRefresh } from './data-refresh.ts';
import { createJsonSender, type IpAnswerSender } from './json-answer.ts';
import { BATCH_HOSTNAME_CONCURRENCY } from './schema.ts';
import { type UpdatePlanConfig, updatePlanFromConfig } from './updater/update-plan.ts';

export interface IpInfoConfig extends UpdatePlanConfig {
  readonly geoipAnonymousDb: string | null;
  readonly geoipConnectionTypeDb: string | null;
  readonly dataRefreshHours: number;
  readonly rpkiRefreshMinutes: number;
  readonly hostnameTimeoutMs: number;
}

const WATCH_INTERVAL_MS = 5_000;
const WORKER_WATCH_INTERVAL_MS = 60_000;

/** The store the composition root builds from config (tests build their own). */
export function createIpDataStoreFromConfig(
  config: IpInfoConfig,
  log: IpDataLog,
  options: { watchIntervalMs?: number; embeddedCacheDir?: string } = {},
): IpDataStore {
  const link = workerLink();
  const store = createIpDataStore({
    load: async (previous) => {
      const data = await loadIpData(
        {
          dataDir: config.dataDir,
          ...(options.embeddedCacheDir ? { embeddedCacheDir: options.embeddedCacheDir } : {}),
          geoipCityDb: config.geoipCityDb,
          geoipAsnDb: config.geoipAsnDb,
          geoipAnonymousDb: config.geoipAnonymousDb,
          geoipConnectionTypeDb: config.geoipConnectionTypeDb,
          feedsOff: feedsTurnedOff(config),
          rpkiFromOperator: config.rpkiVrpFile !== null,
          ...(link ? { readBytes: link.readBytes } : {}),
        },
        previous,
      );
      // What the supervisor may free: the shared copies no worker's data uses any more.
      link?.holding(keysOf(data.kept));
      return data;
    },
    watchFile: ipDataPaths(config.dataDir).manifest,
    // A worker thread is told to reload by its supervisor, which watches the manifest for all of
    // them (every worker swaps at once); its own look is a fallback.
    watchIntervalMs: options.watchIntervalMs ?? (link ? WORKER_WATCH_INTERVAL_MS : WATCH_INTERVAL_MS),
    log,
  });
  link?.onReload(() => void store.reload('new data was installed'));
  return store;
}

function keysOf(kept: KeptParts): string[] {
  return Object.values(kept).flatMap((part) => (typeof part?.key === 'string' ? [part.key] : []));
}

function feedsTurnedOff(config: UpdatePlanConfig): SourceId[] {
  const { urls } = updatePlanFromConfig(config);
  return (Object.keys(urls) as SourceId[]).filter((id) => urls[id] === null);
}

/** What the IP and text plugins share. */
export interface IpInfoServices {
  readonly store: IpDataStore;
  readonly answers: IpAnswers;
  readonly sendJson: IpAnswerSender;
  /** The hostname lookup a batch uses: shared with /api/v1/json's, queued. */
  readonly batchHostnameLookup: HostnameLookup;
}

/**
 * The IP data and its lifecycle: loading starts when the server starts listening (or on the first
 * request of an app that never listens), readiness reports it, the store follows new data, and with
 * DATA_REFRESH_HOURS the service runs the updater itself (data-refresh.ts).
 */
export function createIpInfoServices(
  app: FastifyInstance,
  config: IpInfoConfig,
  deps: {
    resolver: Pick<Resolver, 'reverse'>;
    /** Asked for `network.abuse` when `fields` names it; absent: never asked. */
    abuse?: AbuseService;
    store?: IpDataStore | undefined;
    onAnswerCache?: (hit: boolean) => void;
    onDataDownload?: (outcome: DownloadOutcome, seconds: number) => void;
  },
): IpInfoServices {
  const store = deps.store ?? createIpDataStoreFromConfig(config, app.log);
  app.readiness.add('ip-data', store.readinessCheck);
  let refresh: NodeJS.Timeout | undefined;
  app.addHook('onListen', async () => {
    void store.loaded().catch(() => {});
    const link = workerLink();
    // With WORKERS, one worker thread runs the refresh for all, and every worker loads what it installed.
    if (config.dataRefreshHours > 0 && (link?.refreshes ?? true)) {
      const reloading = link ? { loaded: store.loaded, reload: async () => link.installed() } : store;
      refresh = scheduleDataRefresh(app, config, reloading, deps.onDataDownload);
    }
  });
  app.addHook('onClose', async () => {
    if (refresh !== undefined) clearInterval(refresh);
    await store.close();
  });
  const lookupHostname = createHostnameLookup({ resolver: deps.resolver, timeoutMs: config.hostnameTimeoutMs });
  const answers = createIpAnswers(lookupHostname, deps.onAnswerCache);
  return {
    store,
    answers,
    sendJson: createJsonSender(store, answers, deps.abuse),
    batchHostnameLookup: queuedHostnameLookup(lookupHostname, BATCH_HOSTNAME_CONCURRENCY),
  };
}
