import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSourceFacts, Metrics } from './metrics.ts';

/** The families dashboards and alerts rely on (README, "Metrics"); renaming one breaks them. */
export interface PrometheusMetrics {
  readonly registry: Registry;
  readonly metrics: Metrics;
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  readonly httpDuration: Histogram<'route'>;
}

/** One registry per app (tests build many apps in one process), with prom-client's default metrics. */
export function createPrometheusMetrics(now: () => number = Date.now): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const httpRequests = new Counter({
    name: 'netinfo_http_requests_total',
    help: 'HTTP requests answered, by matched route pattern ("unmatched" when none), method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'netinfo_http_request_duration_seconds',
    help: 'Time from request to response, by matched route pattern.',
    labelNames: ['route'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'netinfo_rate_limited_total',
    help: 'Requests refused with 429, by the tier of the caller.',
    labelNames: ['tier'] as const,
    registers,
  });
  const upstreamRequests = new Counter({
    name: 'netinfo_upstream_requests_total',
    help: 'Requests to upstream servers (dns, whois, rdap, tls, dnsbl, data_download) by outcome (ok, error, timeout).',
    labelNames: ['upstream', 'outcome'] as const,
    registers,
  });
  const upstreamDuration = new Histogram({
    name: 'netinfo_upstream_duration_seconds',
    help: 'Time upstream requests took, by upstream.',
    labelNames: ['upstream'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const cacheRequests = new Counter({
    name: 'netinfo_cache_requests_total',
    help: 'Cache lookups (dns, whois, dnsbl, json, key) by result (hit, miss).',
    labelNames: ['cache', 'result'] as const,
    registers,
  });
  const streamsActive = new Gauge({
    name: 'netinfo_streams_active',
    help: 'Ping and traceroute streams running now, by tool.',
    labelNames: ['tool'] as const,
    registers,
  });
  const streamsTotal = new Counter({
    name: 'netinfo_streams_total',
    help: 'Ping and traceroute streams ended, by tool and how they ended (done, error, client_gone, time_limit, shutdown).',
    labelNames: ['tool', 'end'] as const,
    registers,
  });
  let dataSources: () => readonly DataSourceFacts[] = () => [];
  new Gauge({
    name: 'netinfo_data_age_seconds',
    help: 'Age of each loaded IP data source and feed (since it was built or downloaded).',
    labelNames: ['source'] as const,
    registers,
    // prom-client's cluster aggregation sums gauges unless told otherwise; every worker loads the
    // same files, so the age and size are the same in each: the largest stands for all.
    aggregator: 'max',
    collect() {
      this.reset();
      for (const facts of dataSources()) {
        if (facts.updatedAt !== null) this.set({ source: facts.source }, Math.max(0, (now() - facts.updatedAt) / 1000));
      }
    },
  });
  new Gauge({
    name: 'netinfo_data_entries',
    help: 'Entries (networks, ranges or addresses) in each loaded IP data source and feed.',
    labelNames: ['source'] as const,
    registers,
    aggregator: 'max',
    collect() {
      this.reset();
      for (const facts of dataSources()) this.set({ source: facts.source }, facts.entries);
    },
  });
  let redisFallback: () => boolean = () => false;
  new Gauge({
    name: 'netinfo_redis_fallback_active',
    help: '1 while Redis (REDIS_URL) is unreachable and rate limits are counted per process; 0 otherwise.',
    registers,
    aggregator: 'max',
    collect() {
      this.set(redisFallback() ? 1 : 0);
    },
  });

  const metrics: Metrics = {
    upstream(upstream, outcome, seconds) {
      upstreamRequests.inc({ upstream, outcome });
      upstreamDuration.observe({ upstream }, seconds);
    },
    cache(cache, hit) {
      cacheRequests.inc({ cache, result: hit ? 'hit' : 'miss' });
    },
    rateLimited(tier) {
      rateLimited.inc({ tier });
    },
    streamStarted(tool) {
      streamsActive.inc({ tool });
    },
    streamEnded(tool, end) {
      streamsActive.dec({ tool });
      streamsTotal.inc({ tool, end });
    },
    watchDataSources(read) {
      dataSources = read;
    },
    watchRedisFallback(read) {
      redisFallback = read;
    },
  };
  return { registry, metrics, httpRequests, httpDuration };
}
