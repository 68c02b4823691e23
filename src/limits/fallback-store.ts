import { createFallbackSwitch, type FallbackState, type FallbackSwitchOptions, withFallbackState } from './fallback.ts';
import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

/**
 * Keeps requests flowing when the shared store (Redis) fails: each call goes to the primary, and
 * on error to an in-process store, so limits still hold per instance during an outage. The outage
 * is reported through `onOutage` at most once per `reportEveryMs`; the primary is tried again on
 * every call, or, while the circuit breaker (circuit-breaker.ts) is open, after its background probe
 * found it answering, so service returns to exact shared limits as soon as it is back.
 */
export function createFallbackRateLimitStore(
  options: FallbackSwitchOptions & { primary: RateLimitStore; fallback: RateLimitStore },
): RateLimitStore & FallbackState {
  const fallback = createFallbackSwitch(options);
  return withFallbackState(fallback, {
    consume: (counters: readonly CounterRequest[], amount = 1): Promise<ConsumeResult> =>
      fallback.call(
        () => options.primary.consume(counters, amount),
        () => options.fallback.consume(counters, amount),
      ),
    async close() {
      await Promise.all([options.primary.close(), options.fallback.close()]);
    },
  });
}
