import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { PROBE_TOOLS } from '../probes/tools.ts';
import type { CacheName, DataSourceFacts, Metrics, Upstream } from './metrics.ts';
import { CounterFamily, HistogramFamily } from './series.ts';

/** The families dashboards and alerts rely on (docs/metrics.md); renaming one breaks them. */
export interface PrometheusMetrics {
  readonly registry: Registry;
  readonly metrics: Metrics;
  readonly httpRequests: CounterFamily;
  readonly httpDuration: HistogramFamily;
}

const UPSTREAMS: readonly Upstream[] = ['dns', 'whois', 'rdap', 'tls', 'dnsbl', 'data_download'];
const CACHES: readonly CacheName[] = ['dns', 'whois', 'dnsbl', 'json', 'key', 'abuse'];
const TOOLS = PROBE_TOOLS.map((tool) => tool.name).join(', ');
/** prom-client's default buckets, for request durations. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** One registry per app (tests build many apps in one process), with prom-client's default metrics. */
export function createPrometheusMetrics(now: () => number = Date.now): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` refuses; each is the sum of the
  // family without the suffix (`sum(nodejs_active_handles)`), which stays.
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);
  const registers = [registry];
  const httpRequests = new CounterFamily(
    'netinfo_http_requests_total',
    'HTTP requests answered, by matched route pattern ("unmatched" when none), method and status.',
    registry,
  );
  const httpDuration = new HistogramFamily(
    'netinfo_http_request_duration_seconds',
    'Time from request to response, by matched route pattern.',
    registry,
    REQUEST_BUCKETS,
  );
  const rateLimited = new CounterFamily(
    'netinfo_rate_limited_total',
    'Requests refused with 429, by the tier of the caller.',
    registry,
  );
  const upstreamRequests = new CounterFamily(
    'netinfo_upstream_requests_total',
    'Requests to upstream servers (dns, whois, rdap, tls, dnsbl, data_download) by outcome (ok, error, timeout).',
    registry,
  );
  const upstreamDuration = new HistogramFamily(
    'netinfo_upstream_duration_seconds',
    'Time upstream requests took, by upstream.',
    registry,
    UPSTREAM_BUCKETS,
  );
  const cacheRequests = new CounterFamily(
    'netinfo_cache_requests_total',
    'Cache lookups (dns, whois, dnsbl, json, key, abuse) by result (hit, miss).',
    registry,
  );
  // The series the hot paths bump, made once up front (so they are also shown at 0 before first use).
  const upstreamSeries = new Map(
    UPSTREAMS.map((upstream) => [
      upstream,
      {
        duration: upstreamDuration.labels({ upstream }),
        ok: upstreamRequests.labels({ upstream, outcome: 'ok' }),
        error: upstreamRequests.labels({ upstream, outcome: 'error' }),
        timeout: upstreamRequests.labels({ upstream, outcome: 'timeout' }),
      },
    ]),
  );
  const cacheSeries = new Map(
    CACHES.map((cache) => [
      cache,
      { hit: cacheRequests.labels({ cache, result: 'hit' }), miss: cacheRequests.labels({ cache, result: 'miss' }) },
    ]),
  );
  const streamsActive = new Gauge({
    name: 'netinfo_streams_active',
    help: `Probe streams running now, by tool (${TOOLS}).`,
    labelNames: ['tool'] as const,
    registers,
  });
  const toolCalls = new Counter({
    name: 'netinfo_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (ok, error, cancelled).',
    labelNames: ['tool', 'outcome'] as const,
    registers,
  });
  const streamsTotal = new Counter({
    name: 'netinfo_streams_total',
    help: `Probe streams ended, by tool (${TOOLS}) and how they ended (done, error, client_gone, time_limit, shutdown).`,
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
      const series = upstreamSeries.get(upstream);
      if (series === undefined) return;
      series[outcome].value++;
      series.duration.observe(seconds);
    },
    cache(cache, hit) {
      const series = cacheSeries.get(cache);
      if (series !== undefined) (hit ? series.hit : series.miss).value++;
    },
    rateLimited(tier) {
      rateLimited.labels({ tier }).value++;
    },
    streamStarted(tool) {
      streamsActive.inc({ tool });
    },
    streamEnded(tool, end) {
      streamsActive.dec({ tool });
      streamsTotal.inc({ tool, end });
    },
    toolCall(tool, outcome) {
      toolCalls.inc({ tool, outcome });
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
