import type { CircuitBreaker } from './circuit-breaker.ts';

/** What /readyz reads of a shared backend with an in-process fallback. */
export interface FallbackState {
  /** True while the primary failed its last call. */
  readonly degraded: boolean;
  /** When the primary last failed (the clock passed in), or -Infinity. */
  readonly lastFailureAt: number;
}

/**
 * The switch every shared backend with an in-process twin uses (the rate-limit store, the stream
 * slots): each call goes to the primary (Redis), and on error to the fallback, so the caps still
 * hold per process during an outage. The outage is reported through `onOutage` at most once per
 * `reportEveryMs`; the primary is tried again on every call (unless the shared `breaker` is open:
 * then the fallback answers without waiting), so service returns to shared counts as soon as it is
 * back (`onRecovery`).
 */
export interface FallbackSwitchOptions {
  /** Shared by every twin of one backend: while open, calls go to the fallback without waiting. */
  breaker?: CircuitBreaker;
  onOutage: (error: Error) => void;
  onRecovery?: () => void;
  now?: () => number;
  reportEveryMs?: number;
}

export function createFallbackSwitch(options: FallbackSwitchOptions) {
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
    async call<R>(primary: () => Promise<R> | R, fallback: () => Promise<R> | R): Promise<R> {
      if (options.breaker?.open) {
        degraded = true;
        return fallback();
      }
      try {
        const result = await primary();
        options.breaker?.success();
        if (degraded) {
          degraded = false;
          options.onRecovery?.();
        }
        return result;
      } catch (error) {
        options.breaker?.failure(error as Error);
        degraded = true;
        lastFailureAt = now();
        if (now() - lastReport >= reportEveryMs) {
          lastReport = now();
          options.onOutage(error as Error);
        }
        return fallback();
      }
    },
  };
}

/** `target` with the switch's state as live getters (a spread would copy today's values). */
export function withFallbackState<T extends object>(fallback: FallbackState, target: T): T & FallbackState {
  return Object.defineProperties(target, {
    degraded: { get: () => fallback.degraded, enumerable: true },
    lastFailureAt: { get: () => fallback.lastFailureAt, enumerable: true },
  }) as T & FallbackState;
}
