import type { FastifyInstance } from 'fastify';
import { ipDataPaths, readManifest } from './data/data-files.ts';
import type { IpDataStore } from './data/ip-data-store.ts';
import { UpdateError } from './updater/download.ts';
import { runDataUpdateInChild } from './updater/run-in-child.ts';
import type { SourceReport } from './updater/run-update.ts';
import { type UpdatePlanConfig, updatePlanFromConfig } from './updater/update-plan.ts';

export type DownloadOutcome = 'ok' | 'error' | 'timeout';

/** A source's report as the metrics count it: unchanged is a successful ask too; skipped was not asked. */
export function downloadOutcome(report: SourceReport): DownloadOutcome | null {
  if (report.outcome === 'skipped') return null;
  if (report.outcome !== 'failed') return 'ok';
  // download.ts says so when the whole answer did not arrive within the source's time limit.
  return /no complete answer within \d+ ms/.test(report.detail) ? 'timeout' : 'error';
}

/** Runs the updater every DATA_REFRESH_HOURS, and once at startup when the last run is older. */
export function scheduleDataRefresh(
  app: FastifyInstance,
  config: UpdatePlanConfig & { readonly dataRefreshHours: number },
  store: IpDataStore,
  /** Told of each source the update asked for (netinfo_upstream_*{upstream="data_download"}). */
  onDownload: (outcome: DownloadOutcome, seconds: number) => void = () => {},
): NodeJS.Timeout {
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
      for (const report of reports) {
        const outcome = downloadOutcome(report);
        if (outcome !== null) onDownload(outcome, report.seconds ?? 0);
      }
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
