import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

export interface FallbackState {
  /** True while the primary store failed its last call. */
  readonly degraded: boolean;
  /** When the primary last failed (the clock passed in), or -Infinity. */
  readonly lastFailureAt: number;
}

/**
 * Keeps requests flowing when the shared store (Redis) fails: each call goes to the primary, and
 * on error to an in-process store, so limits still hold per instance during an outage. The outage
 * is reported through `onOutage` at most once per `reportEveryMs`; the primary is tried again on
 * every call, so service returns to exact shared limits as soon as it is back.
 */
export function createFallbackRateLimitStore(options: {
  primary: RateLimitStore;
  fallback: RateLimitStore;
  onOutage: (error: Error) => void;
  onRecovery?: () => void;
  now?: () => number;
  reportEveryMs?: number;
}): RateLimitStore & FallbackState {
  const now = options.now ?? Date.now;
  const reportEveryMs = options.reportEveryMs ?? 60_000;
  let degraded = false;
  let lastReport = Number.NEGATIVE_INFINITY;
  let lastFailureAt = Number.NEGATIVE_INFINITY;
  return {
    get degraded() {
      return degraded;
    },
    get lastFailureAt() {
      return lastFailureAt;
    },
    async consume(counters: readonly CounterRequest[], amount = 1): Promise<ConsumeResult> {
      try {
        const result = await options.primary.consume(counters, amount);
        if (degraded) {
          degraded = false;
          options.onRecovery?.();
        }
        return result;
      } catch (error) {
        degraded = true;
        lastFailureAt = now();
        if (now() - lastReport >= reportEveryMs) {
          lastReport = now();
          options.onOutage(error as Error);
        }
        return options.fallback.consume(counters, amount);
      }
    },
    async close() {
      await Promise.all([options.primary.close(), options.fallback.close()]);
    },
  };
}
