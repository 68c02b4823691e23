import type { TtlCache } from '../cache/ttl-cache.ts';
import type { DnsCache } from '../dns/cache.ts';
import { DnsError } from '../dns/errors.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { DnsTransport, ExchangeOutcome } from '../dns/transport.ts';
import { TlsCheckError } from '../tls/check-error.ts';
import type { TlsChecker } from '../tls/inspect.ts';
import { type CacheName, type Metrics, noMetrics, type Upstream } from './metrics.ts';

// Decorators the composition root puts around the backends it builds, so the capabilities report
// to the metrics without knowing of them. With the metrics off each returns what it was given.

export function countedTtlCache<T>(cache: TtlCache<T>, name: CacheName, metrics: Metrics): TtlCache<T> {
  if (metrics === noMetrics) return cache;
  return {
    async get(key) {
      const value = await cache.get(key);
      metrics.cache(name, value !== undefined);
      return value;
    },
    set: (key, value, ttlSeconds) => cache.set(key, value, ttlSeconds),
  };
}

export function countedDnsCache(cache: DnsCache, metrics: Metrics): DnsCache {
  if (metrics === noMetrics) return cache;
  return {
    async get(key) {
      const answer = await cache.get(key);
      metrics.cache('dns', answer !== undefined);
      return answer;
    },
    set: (key, answer) => cache.set(key, answer),
  };
}

/** Every query sent to a DNS server (each try, UDP or TCP): netinfo_upstream_*{upstream="dns"}. */
export function timedDnsTransport(transport: DnsTransport, metrics: Metrics): DnsTransport {
  if (metrics === noMetrics) return transport;
  const report = (outcome: ExchangeOutcome<unknown>, started: number) =>
    metrics.upstream(
      'dns',
      outcome.ok ? 'ok' : outcome.code === 'TIMEOUT' ? 'timeout' : 'error',
      (performance.now() - started) / 1000,
    );
  return {
    async udp(request) {
      const started = performance.now();
      const outcome = await transport.udp(request);
      report(outcome, started);
      return outcome;
    },
    async tcp(request) {
      const started = performance.now();
      const outcome = await transport.tcp(request);
      report(outcome, started);
      return outcome;
    },
  };
}

/**
 * The DNSBL checks' queries (netinfo_upstream_*{upstream="dnsbl"}): each question to the resolver
 * that was not answered from its cache. Their packets are also counted as `dns`, the transport.
 */
export function timedDnsblResolver(resolver: Resolver, metrics: Metrics): Resolver {
  if (metrics === noMetrics) return resolver;
  return {
    ...resolver,
    async query(name, type, options) {
      const started = performance.now();
      const report = (outcome: 'ok' | 'error' | 'timeout') =>
        metrics.upstream('dnsbl', outcome, (performance.now() - started) / 1000);
      try {
        const result = await resolver.query(name, type, options);
        if (!result.fromCache) report('ok');
        return result;
      } catch (error) {
        report(error instanceof DnsError && error.code === 'TIMEOUT' ? 'timeout' : 'error');
        throw error;
      }
    },
  };
}

/** Each certificate check (netinfo_upstream_*{upstream="tls"}); refused targets are not sent. */
export function timedTlsChecker(checker: TlsChecker, metrics: Metrics): TlsChecker {
  if (metrics === noMetrics) return checker;
  const upstream: Upstream = 'tls';
  return {
    async check(target) {
      const started = performance.now();
      try {
        const result = await checker.check(target);
        metrics.upstream(upstream, 'ok', (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        const kind = error instanceof TlsCheckError ? error.kind : undefined;
        if (kind !== 'forbidden' && kind !== 'no-address' && kind !== 'dns') {
          metrics.upstream(upstream, kind === 'timeout' ? 'timeout' : 'error', (performance.now() - started) / 1000);
        }
        throw error;
      }
    },
  };
}
