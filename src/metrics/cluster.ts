import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Scrape } from './listener.ts';

/**
 * WORKERS > 1: each worker thread answers the supervisor's scrape requests with this registry as
 * JSON; the supervisor sums them (prom-client's aggregation, which honours each metric's
 * `aggregator`: prometheus.ts).
 */
export function joinWorkerMetrics(
  registry: Registry,
  link: { answerMetrics(collect: () => Promise<unknown[]>): void },
): void {
  link.answerMetrics(() => registry.getMetricsAsJSON());
}

export function workersScrape(collect: () => Promise<unknown[][]>): Scrape {
  return async () => {
    const summed = AggregatorRegistry.aggregate(await collect());
    return { contentType: summed.contentType, body: await summed.metrics() };
  };
}
