import { Redis } from 'ioredis';

/**
 * The Redis connection shared by the limiter and the caches. Commands fail fast while Redis is
 * unreachable (no offline queue, a short command timeout) so callers fall back at once instead of
 * holding requests; ioredis reconnects on its own in the background.
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
    enableAutoPipelining: true,
  });
}

/** Reports an outage at most once per `everyMs`, so a down Redis does not flood the log. */
export function throttledReporter(report: (error: Error) => void, everyMs = 60_000, now: () => number = Date.now) {
  let last = Number.NEGATIVE_INFINITY;
  return (error: Error) => {
    if (now() - last < everyMs) return;
    last = now();
    report(error);
  };
}
