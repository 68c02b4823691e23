import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OwnerChanges } from '../accounts/owner-changes.ts';
import type { CircuitBreaker } from '../limits/circuit-breaker.ts';

const VERSION_KEY = 'netinfo:key-owners:version';

export function createRedisOwnerChanges(redis: Redis, breaker?: CircuitBreaker): OwnerChanges {
  const unread = () => null;
  return {
    async version() {
      const read = async () => (await redis.get(VERSION_KEY)) ?? '0';
      if (breaker) return breaker.call(read, unread);
      return read().catch(unread);
    },
    async announce() {
      // If Redis is down the change still holds in the database; instances that cannot read the
      // version meanwhile do not trust their caches (version() is null), so nothing stale is served,
      // and an announcement skipped while the breaker is open loses nothing.
      // A random value rather than a counter: Redis keeps no data across a restart here, and a
      // counter starting again from 0 could come back to the very number an instance last saw.
      const write = async () => {
        await redis.set(VERSION_KEY, randomUUID());
      };
      if (breaker) return breaker.call(write, () => {});
      await write().catch(() => {});
    },
  };
}
