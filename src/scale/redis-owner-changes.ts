import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OwnerChanges } from '../accounts/owner-changes.ts';

const VERSION_KEY = 'netinfo:key-owners:version';

/** OwnerChanges through a version kept in Redis: the twin shared-state.ts picks when REDIS_URL is set. */
export function createRedisOwnerChanges(redis: Redis): OwnerChanges {
  return {
    async version() {
      try {
        return (await redis.get(VERSION_KEY)) ?? '0';
      } catch {
        return null;
      }
    },
    async announce() {
      // If Redis is down the change still holds in the database; instances that cannot read the
      // version meanwhile do not trust their caches (version() is null), so nothing stale is served.
      // A random value rather than a counter: Redis keeps no data across a restart here, and a
      // counter starting again from 0 could come back to the very number an instance last saw.
      await redis.set(VERSION_KEY, randomUUID()).catch(() => {});
    },
  };
}
