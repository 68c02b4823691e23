import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Resolver } from '../dns/resolver.ts';
import { registerAsnRoute } from './asn-route.ts';
import { registerBatchRoute } from './batch-route.ts';
import { ipDataPaths, readManifest, type SourceId } from './data-files.ts';
import { createHostnameLookup, queuedHostnameLookup, type SharedHostnameLookup } from './hostname.ts';
import { createIpAnswers, type IpAnswers } from './ip-answers.ts';
import { loadIpData } from './ip-data.ts';
import { createIpDataStore, type IpDataLog, type IpDataStore } from './ip-data-store.ts';
import { type IpAnswerSender, registerJsonRoute } from './json-route.ts';
import { UpdateError } from './updater/download.ts';
import { runDataUpdateInChild } from './updater/run-in-child.ts';
import { updatePlanFromConfig } from './updater/update-plan.ts';

/** How often the store looks for a new manifest from `npm run data:update`. */
const WATCH_INTERVAL_MS = 5_000;

/** The store the composition root builds from config (tests build their own). */
export function createIpDataStoreFromConfig(
  config: Config,
  log: IpDataLog,
  options: { watchIntervalMs?: number; embeddedCacheDir?: string } = {},
): IpDataStore {
  return createIpDataStore({
    load: (previous) =>
      loadIpData(
        {
          dataDir: config.dataDir,
          ...(options.embeddedCacheDir ? { embeddedCacheDir: options.embeddedCacheDir } : {}),
          geoipCityDb: config.geoipCityDb,
          geoipAsnDb: config.geoipAsnDb,
          geoipAnonymousDb: config.geoipAnonymousDb,
          geoipConnectionTypeDb: config.geoipConnectionTypeDb,
          feedsOff: feedsTurnedOff(config),
        },
        previous,
      ),
    watchFile: ipDataPaths(config.dataDir).manifest,
    watchIntervalMs: options.watchIntervalMs ?? WATCH_INTERVAL_MS,
    log,
  });
}

function feedsTurnedOff(config: Config): SourceId[] {
  const { urls } = updatePlanFromConfig(config);
  return (Object.keys(urls) as SourceId[]).filter((id) => urls[id] === null);
}

/**
 * /api/v1/json, /json/{ip}, /asn/{asn} and /batch, and their data's lifecycle: loading starts when the server starts listening (or on
 * the first request of an app that never listens), readiness reports it, the store follows new
 * data, and with DATA_REFRESH_HOURS the service runs the updater itself.
 */
/** What the IP routes share with the plain-text paths (src/text/). */
export interface IpInfoServices {
  readonly store: IpDataStore;
  readonly answers: IpAnswers;
  readonly lookupHostname: SharedHostnameLookup;
  /** Sends what /api/v1/json answers about an address (GET /json uses it). */
  readonly sendJson: IpAnswerSender;
}

/**
 * Reverse lookups a batch may have running at once, across all batches (joining one already in
 * flight takes no slot). 32 keeps a 1,000-address batch from flooding the resolver while a batch
 * of 1,000 fresh addresses still finishes in about 1000 / 32 x the resolver's time per lookup.
 */
export const BATCH_HOSTNAME_CONCURRENCY = 32;

export function registerIpInfo(
  app: FastifyInstance,
  config: Config,
  deps: { resolver: Pick<Resolver, 'reverse'>; store?: IpDataStore },
): IpInfoServices {
  const store = deps.store ?? createIpDataStoreFromConfig(config, app.log);
  app.readiness.add('ip-data', store.readinessCheck);
  let refresh: NodeJS.Timeout | undefined;
  app.addHook('onListen', async () => {
    void store.loaded().catch(() => {});
    if (config.dataRefreshHours > 0) refresh = scheduleRefresh(app, config, store);
  });
  app.addHook('onClose', async () => {
    if (refresh !== undefined) clearInterval(refresh);
    store.close();
  });
  const lookupHostname = createHostnameLookup({ resolver: deps.resolver, timeoutMs: config.hostnameTimeoutMs });
  const answers = createIpAnswers(lookupHostname);
  const sendJson = registerJsonRoute(app, store, answers);
  registerAsnRoute(app, store);
  registerBatchRoute(app, store, queuedHostnameLookup(lookupHostname, BATCH_HOSTNAME_CONCURRENCY));
  return { store, answers, lookupHostname, sendJson };
}

/** Runs the updater every DATA_REFRESH_HOURS, and once at startup when the last run is older. */
function scheduleRefresh(app: FastifyInstance, config: Config, store: IpDataStore): NodeJS.Timeout {
  const periodMs = config.dataRefreshHours * 3_600_000;
  let running = false;
  let lastRunAt = Number.NaN;
  const refresh = async (reason: string) => {
    if (running) return;
    running = true;
    lastRunAt = Date.now();
    try {
      await store.loaded().catch(() => {});
      const reports = await runDataUpdateInChild(updatePlanFromConfig(config), app.shutdownSignal);
      const failed = reports.filter((report) => report.outcome === 'failed');
      const updated = reports.filter((report) => report.outcome === 'updated').map((report) => report.id);
      app.log.info({ reason, updated, failed: failed.map((f) => `${f.id}: ${f.detail}`) }, 'IP data refresh finished');
      await store.reload('scheduled refresh');
    } catch (error) {
      if (app.shutdownSignal.aborted) {
        app.log.info('IP data refresh stopped: the service is closing');
        return;
      }
      // With WORKERS > 1 every process schedules the refresh; the lock lets one of them run it.
      if (error instanceof UpdateError && /another update is running/.test(error.message)) {
        app.log.info({ reason: error.message }, 'IP data refresh left to the process already running it');
      } else {
        app.log.error({ err: error }, 'IP data refresh failed; the previous data stays in use');
      }
    } finally {
      running = false;
    }
  };
  void readManifest(ipDataPaths(config.dataDir).manifest).then((manifest) => {
    lastRunAt = Date.parse(manifest.updatedAt);
    if (!(lastRunAt > Date.now() - periodMs)) void refresh('the last update is older than DATA_REFRESH_HOURS');
  });
  // Timers cannot wait longer than 24.8 days, so look every hour (or sooner) whether one is due.
  const timer = setInterval(
    () => {
      if (!(lastRunAt > Date.now() - periodMs)) void refresh('DATA_REFRESH_HOURS');
    },
    Math.min(periodMs, 3_600_000),
  );
  timer.unref();
  return timer;
}
