import type { FallbackState } from '../../limits/fallback-store.ts';
import type { SlotGrant, SlotRefusal, StreamSlots } from './slots.ts';

/**
 * Keeps streams flowing when the shared slots (Redis) fail, as limits/fallback-store.ts does for
 * the rate limits: each acquire goes to the primary, and on error to the in-process slots, so the
 * caps still hold per process during an outage. The primary is tried again on every acquire, so
 * the caps are shared again as soon as it is back. A slot is given back to the side that granted it.
 */
export function createFallbackStreamSlots(options: {
  primary: StreamSlots;
  fallback: StreamSlots;
  onOutage: (error: Error) => void;
  onRecovery?: () => void;
  now?: () => number;
}): StreamSlots & FallbackState {
  const now = options.now ?? Date.now;
  let degraded = false;
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  return {
    get degraded() {
      return degraded;
    },
    get lastFailureAt() {
      return lastFailureAt;
    },
    get open() {
      return options.primary.open + options.fallback.open;
    },
    async acquire(client, holdUntilMs): Promise<SlotGrant | SlotRefusal> {
      try {
        const result = await options.primary.acquire(client, holdUntilMs);
        if (degraded) {
          degraded = false;
          options.onRecovery?.();
        }
        return result;
      } catch (error) {
        degraded = true;
        lastFailureAt = now();
        options.onOutage(error as Error);
        return options.fallback.acquire(client, holdUntilMs);
      }
    },
  };
}
