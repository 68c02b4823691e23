import type { FastifyInstance } from 'fastify';
import { workerLink } from '../workers/link.ts';
import { joinWorkerMetrics } from './cluster.ts';
import type { MetricsConfig } from './config.ts';
import { registerHttpMetrics } from './http-metrics.ts';
import { closeMetricsListener, startMetricsListener } from './listener.ts';
import { type Metrics, noMetrics } from './metrics.ts';
import { createPrometheusMetrics } from './prometheus.ts';

/**
 * The metrics, started before anything else is opened, so that a METRICS_PORT that is taken stops
 * the start first. With METRICS_PORT=0 nothing is counted at all; a worker (WORKERS > 1) counts, and
 * the supervisor's listener sums every worker thread's registry (server.ts). `attach` counts the app's
 * requests and closes the listener with it.
 */
export async function startMetrics(
  config: MetricsConfig,
  now: () => number,
): Promise<{ metrics: Metrics; attach: (app: FastifyInstance) => void }> {
  const prometheus = config.metricsPort === 0 ? null : createPrometheusMetrics(now);
  if (prometheus === null) return { metrics: noMetrics, attach: () => {} };
  const { registry } = prometheus;
  const link = workerLink();
  if (link !== null) joinWorkerMetrics(registry, link);
  const listener =
    link !== null
      ? null
      : await startMetricsListener(config, async () => ({
          contentType: registry.contentType,
          body: await registry.metrics(),
        }));
  return {
    metrics: prometheus.metrics,
    attach: (app) => {
      if (listener !== null) app.addHook('onClose', async () => closeMetricsListener(listener));
      registerHttpMetrics(app, prometheus);
    },
  };
}
