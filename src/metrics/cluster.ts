import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Scrape } from './listener.ts';

/**
 * WORKERS > 1: each worker answers the supervisor's scrape requests (over node:cluster's IPC) with
 * this registry; the supervisor sums them.
 */
export function joinClusterMetrics(registry: Registry): void {
  // Constructing one is what makes prom-client answer the supervisor's requests in this worker.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

export function clusterScrape(): Scrape {
  const aggregator = new AggregatorRegistry();
  return async () => {
    const summed = await aggregator.clusterMetrics();
    return { contentType: aggregator.contentType, body: summed };
  };
}
