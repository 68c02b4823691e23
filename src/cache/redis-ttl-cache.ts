import type { Redis } from 'ioredis';
import type { TtlCache } from './ttl-cache.ts';

/**
 * A TtlCache in Redis, shared by every instance. A cache must never fail a request: when Redis is
 * down, `get` misses and `set` drops the value (the failure is reported to `onError`, which the
 * composition root rate-limits in the log).
 */
export function createRedisTtlCache<T>(
  redis: Redis,
  namespace: string,
  onError: (error: Error) => void = () => {},
): TtlCache<T> {
  const prefix = `netinfo:cache:${namespace}:`;
  return {
    async get(key) {
      try {
        const text = await redis.get(prefix + key);
        return text === null ? undefined : (JSON.parse(text) as T);
      } catch (error) {
        onError(error as Error);
        return undefined;
      }
    },
    async set(key, value, ttlSeconds) {
      if (ttlSeconds <= 0) return;
      try {
        await redis.set(prefix + key, JSON.stringify(value), 'PX', Math.round(ttlSeconds * 1000));
      } catch (error) {
        onError(error as Error);
      }
    },
  };
}
