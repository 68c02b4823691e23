/**
 * What the capabilities report, as one small interface handed in by the composition root (app.ts),
 * so no capability imports prom-client or a global registry. `noMetrics` is its silent twin, for
 * code and tests that do not care.
 */
export type Upstream = 'dns' | 'whois' | 'rdap' | 'tls' | 'dnsbl' | 'data_download';
export type UpstreamOutcome = 'ok' | 'error' | 'timeout';
export type CacheName = 'dns' | 'whois' | 'dnsbl' | 'json' | 'key' | 'abuse';
export type StreamEnd = 'done' | 'error' | 'client_gone' | 'time_limit' | 'shutdown';
/** An MCP tool call: answered, answered with the route's error, or cancelled by the client. */
export type ToolCallOutcome = 'ok' | 'error' | 'cancelled';

/** One loaded IP data source or feed, as netinfo_data_age_seconds / netinfo_data_entries show it. */
export interface DataSourceFacts {
  readonly source: string;
  /** When the data was built or downloaded (ms since the epoch), or null when unknown. */
  readonly updatedAt: number | null;
  readonly entries: number;
}

export interface Metrics {
  upstream(upstream: Upstream, outcome: UpstreamOutcome, seconds: number): void;
  cache(cache: CacheName, hit: boolean): void;
  rateLimited(tier: string): void;
  streamStarted(tool: string): void;
  streamEnded(tool: string, end: StreamEnd): void;
  toolCall(tool: string, outcome: ToolCallOutcome): void;
  /** Read at every scrape: the sources loaded now. */
  watchDataSources(read: () => readonly DataSourceFacts[]): void;
  /** Read at every scrape: 1 while Redis is unreachable and the process runs on its own limits. */
  watchRedisFallback(read: () => boolean): void;
}

const ignore = () => {};
export const noMetrics: Metrics = {
  upstream: ignore,
  cache: ignore,
  rateLimited: ignore,
  streamStarted: ignore,
  streamEnded: ignore,
  toolCall: ignore,
  watchDataSources: ignore,
  watchRedisFallback: ignore,
};
