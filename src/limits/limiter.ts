import { type MaybePromise, then } from './maybe-async.ts';
import type { ConsumeResult, RateLimitStore } from './store.ts';
import type { Tier, TierLimits } from './tiers.ts';

export type WindowName = 'hourly' | 'daily';

const WINDOW_MS: Readonly<Record<WindowName, number>> = { hourly: 3_600_000, daily: 86_400_000 };

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** X-RateLimit-Limit: the tier's hourly maximum. */
  readonly limit: number;
  /** X-RateLimit-Remaining: requests left before either window refuses. */
  readonly remaining: number;
  /** X-RateLimit-Reset: UNIX seconds at which the binding window resets. */
  readonly reset: number;
  /** The window that refused the request (when not allowed). */
  readonly refusedBy?: { readonly window: WindowName; readonly limit: number; readonly reset: number };
}

export interface RateLimiter {
  /**
   * Counts one request of `subject` (an IP, a /64 or an account) on `tier`, unless a window is
   * spent. Synchronous when the store is (the in-process one).
   */
  check(tier: Tier, subject: string): MaybePromise<RateLimitDecision>;
}

/**
 * The two windows a request of `subject` on `tier` counts in at `time`, as the store's counters
 * (also read by the account page to show usage).
 */
export function rateLimitWindows(limits: TierLimits, tier: Tier, subject: string, time: number) {
  return (['hourly', 'daily'] as const).map((name) => {
    const index = Math.floor(time / WINDOW_MS[name]);
    return {
      name,
      limit: limits[tier][name],
      resetMs: (index + 1) * WINDOW_MS[name],
      window: windowKey(tier, name, index),
      subject,
    };
  });
}

/**
 * `rl:<tier>:<window>:<index>`, the same string object for as long as the window lasts: the
 * in-process store finds its counters by it on every request, and a string that is reused keeps
 * its hash instead of being built and hashed anew.
 */
const windowKeys = new Map<string, { index: number; key: string }>();
function windowKey(tier: Tier, name: WindowName, index: number): string {
  const slot = tier + name;
  const known = windowKeys.get(slot);
  if (known !== undefined && known.index === index) return known.key;
  const key = `rl:${tier}:${name}:${index}`;
  windowKeys.set(slot, { index, key });
  return key;
}

/**
 * Fixed windows aligned to the UTC hour and the UTC day, both applied to every request. Windows
 * are keyed by their index, so a new hour is a new counter: no reset job, and the store only needs
 * an atomic all-or-nothing increment.
 */
export function createRateLimiter(options: {
  store: RateLimitStore;
  limits: TierLimits;
  now?: () => number;
}): RateLimiter {
  const { store, limits } = options;
  const now = options.now ?? Date.now;
  return {
    check(tier, subject) {
      const windows = rateLimitWindows(limits, tier, subject, now());
      const counted = store.consume(
        windows.map((window) => ({
          window: window.window,
          subject: window.subject,
          limit: window.limit,
          expiresAt: window.resetMs,
        })),
      );
      return then(counted, (result) => decide(windows, result));
    },
  };
}

function decide(windows: ReturnType<typeof rateLimitWindows>, result: ConsumeResult): RateLimitDecision {
  const states = windows.map((window, index) => ({
    window: window.name,
    limit: window.limit,
    reset: Math.ceil(window.resetMs / 1000),
    remaining: Math.max(0, window.limit - (result.counts[index] ?? 0)),
  }));
  const [hourly, daily] = states as [(typeof states)[0], (typeof states)[0]];
  if (!result.allowed) {
    // Of the spent windows, the one that resets last is the one the caller must wait for.
    const spent = states.filter((state) => state.remaining === 0);
    const binding = spent[spent.length - 1] ?? daily;
    return {
      allowed: false,
      limit: hourly.limit,
      remaining: 0,
      reset: binding.reset,
      refusedBy: { window: binding.window, limit: binding.limit, reset: binding.reset },
    };
  }
  // On a tie the daily window binds: once both run out, only the daily reset helps.
  const binding = hourly.remaining < daily.remaining ? hourly : daily;
  return { allowed: true, limit: hourly.limit, remaining: binding.remaining, reset: binding.reset };
}
