import {
  createFallbackSwitch,
  type FallbackState,
  type FallbackSwitchOptions,
  withFallbackState,
} from '../../limits/fallback.ts';
import type { SlotGrant, SlotRefusal, StreamSlots } from './slots.ts';

/**
 * Keeps streams flowing when the shared slots (Redis) fail, as limits/fallback-store.ts does for
 * the rate limits (both through limits/fallback.ts): each acquire goes to the primary, and on error
 * to the in-process slots, so the caps still hold per process during an outage; the outage is
 * logged at most once a minute. A slot is given back to the side that granted it.
 */
export function createFallbackStreamSlots(
  options: FallbackSwitchOptions & { primary: StreamSlots; fallback: StreamSlots },
): StreamSlots & FallbackState {
  const fallback = createFallbackSwitch(options);
  return withFallbackState(fallback, {
    get open() {
      return options.primary.open + options.fallback.open;
    },
    acquire: (client, holdUntilMs): Promise<SlotGrant | SlotRefusal> =>
      fallback.call(
        () => options.primary.acquire(client, holdUntilMs),
        () => options.fallback.acquire(client, holdUntilMs),
      ),
  });
}
