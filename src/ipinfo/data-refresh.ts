import type { FastifyInstance } from 'fastify';
import { ipDataPaths, readManifest } from './data/data-files.ts';
import type { IpDataStore } from './data/ip-data-store.ts';
import { UpdateError } from './updater/download.ts';
import { runDataUpdateInChild } from './updater/run-in-child.ts';
import type { SourceReport } from './updater/run-update.ts';
import { rpkiOnlyPlan, type UpdatePlanConfig, updatePlanFromConfig } from './updater/update-plan.ts';

const RETRY_MS = 3_600_000;

export type DownloadOutcome = 'ok' | 'error' | 'timeout';

/** A source's report as the metrics count it: unchanged is a successful ask too; skipped was not asked. */
export function downloadOutcome(report: SourceReport): DownloadOutcome | null {
  if (report.outcome === 'skipped') return null;
  if (report.outcome !== 'failed') return 'ok';
  // download.ts says so when the whole answer did not arrive within the source's time limit.
  return /no complete answer within \d+ ms/.test(report.detail) ? 'timeout' : 'error';
}

/**
 * Runs the updater every DATA_REFRESH_HOURS, and at once at startup when nothing was downloaded
 * yet or the last run is older (the data loaded meanwhile, embedded or earlier, keeps serving).
 * Between those, every RPKI_REFRESH_MINUTES, it runs for the VRP set alone (validators publish
 * several a day). One run at a time per process, so the two never race for the update lock.
 * Each attempt logs one line: info when every source is current, warn naming the sources that
 * failed (offline, say), which keep their previous data. Nothing is scheduled when every source
 * is `off` or supplied by the operator: there is nothing to fetch.
 */
export function scheduleDataRefresh(
  app: FastifyInstance,
  config: UpdatePlanConfig & { readonly dataRefreshHours: number; readonly rpkiRefreshMinutes: number },
  store: Pick<IpDataStore, 'loaded' | 'reload'>,
  /** Told of each source the update asked for (netinfo_upstream_*{upstream="data_download"}). */
  onDownload: (outcome: DownloadOutcome, seconds: number) => void = () => {},
): NodeJS.Timeout | undefined {
  const periodMs = config.dataRefreshHours * 3_600_000;
  const plan = updatePlanFromConfig(config);
  const fetched = (Object.keys(plan.urls) as (keyof typeof plan.urls)[]).filter(
    (id) => plan.urls[id] !== null && plan.skip[id] === undefined,
  );
  const rpkiPeriodMs = plan.urls.rpki === null ? 0 : config.rpkiRefreshMinutes * 60_000;
  if (fetched.length === 0) {
    app.log.info('IP data refresh off: every source is off or supplied by the operator');
    return undefined;
  }
  let running = false;
  let lastRunAt = Number.NaN;
  let lastRpkiAt = Number.NaN;
  // Until a first download succeeds (a fresh install started offline), attempts come every hour
  // rather than every DATA_REFRESH_HOURS.
  let nothingDownloaded = true;
  const manifestPath = ipDataPaths(config.dataDir).manifest;
  const due = () => !(lastRunAt > Date.now() - periodMs) || (nothingDownloaded && !(lastRunAt > Date.now() - RETRY_MS));
  const rpkiDue = () => rpkiPeriodMs > 0 && !(lastRpkiAt > Date.now() - rpkiPeriodMs);
  const refresh = async (reason: string, rpkiOnly = false) => {
    if (running) return;
    running = true;
    lastRpkiAt = Date.now();
    if (!rpkiOnly) lastRunAt = lastRpkiAt;
    try {
      await store.loaded().catch(() => {});
      const reports = await runDataUpdateInChild(rpkiOnly ? rpkiOnlyPlan(plan) : plan, app.shutdownSignal);
      for (const report of reports) {
        const outcome = downloadOutcome(report);
        if (outcome !== null) onDownload(outcome, report.seconds ?? 0);
      }
      const failed = reports.filter((report) => report.outcome === 'failed');
      const updated = reports.filter((report) => report.outcome === 'updated').map((report) => report.id);
      const fields = { reason, updated, failed: failed.map((f) => `${f.id}: ${f.detail}`) };
      if (failed.length === 0) app.log.info(fields, rpkiOnly ? 'RPKI refresh finished' : 'IP data refresh finished');
      else app.log.warn(fields, 'IP data refresh finished; the sources that failed keep the data in use');
      nothingDownloaded = Object.keys((await readManifest(manifestPath)).sources).length === 0;
      await store.reload('scheduled refresh');
    } catch (error) {
      if (app.shutdownSignal.aborted) {
        app.log.info('IP data refresh stopped: the service is closing');
        return;
      }
      // Instances may share DATA_DIR (and `npm run data:update` may run beside them): the lock lets
      // one of them run it.
      if (error instanceof UpdateError && /another update is running/.test(error.message)) {
        app.log.info({ reason: error.message }, 'IP data refresh left to the process already running it');
      } else {
        app.log.error({ err: error }, 'IP data refresh failed; the previous data stays in use');
      }
    } finally {
      running = false;
    }
  };
  void readManifest(manifestPath).then((manifest) => {
    lastRunAt = Date.parse(manifest.updatedAt);
    lastRpkiAt = Date.parse(manifest.sources.rpki?.installedAt ?? '');
    nothingDownloaded = Object.keys(manifest.sources).length === 0;
    if (nothingDownloaded) void refresh('no data downloaded yet');
    else if (due()) void refresh('the last update is older than DATA_REFRESH_HOURS');
    else if (rpkiDue()) void refresh('the VRP set is older than RPKI_REFRESH_MINUTES', true);
  });
  // Timers cannot wait longer than 24.8 days, so look every hour (or sooner) whether one is due.
  const timer = setInterval(
    () => {
      if (due()) void refresh(nothingDownloaded ? 'no data downloaded yet' : 'DATA_REFRESH_HOURS');
      else if (rpkiDue()) void refresh('RPKI_REFRESH_MINUTES', true);
    },
    Math.min(periodMs, RETRY_MS, rpkiPeriodMs || RETRY_MS),
  );
  timer.unref();
  return timer;
}
