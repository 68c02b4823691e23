import type { Redis } from 'ioredis';
import { type Cancellations, createMemoryCancellations } from './cancellations.ts';

const CHANNEL = 'netinfo:mcp:cancel';

/**
 * Several processes on one Redis: a cancellation not running here is published, and every
 * process aborts the call if it is its own. The subscription is made with the first call watched,
 * so a service no agent uses holds no extra connection. Published at most once: Redis down loses
 * the cancellation, and the call ends at its own time limit as any stream does.
 */
export function createRedisCancellations(redis: Redis): Cancellations {
  const local = createMemoryCancellations();
  let subscriber: Redis | undefined;
  const subscribe = () => {
    if (subscriber) return;
    subscriber = redis.duplicate({ commandTimeout: undefined, enableOfflineQueue: true });
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, key: string) => {
      local.abortLocal(key);
    });
    subscriber.subscribe(CHANNEL).catch(() => {});
  };
  return {
    watch(key) {
      subscribe();
      return local.watch(key);
    },
    async cancel(key) {
      if (local.abortLocal(key)) return;
      await redis.publish(CHANNEL, key).catch(() => {});
    },
    close() {
      local.close();
      subscriber?.disconnect();
    },
  };
}
