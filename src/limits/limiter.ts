import { isPromise, type MaybePromise } from './maybe-async.ts';
import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';
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
  readonly refusedBy?: {
    readonly window: WindowName;
    readonly limit: number;
    readonly reset: number;
    /** Epoch ms of the decision, the clock Retry-After is counted from. */
    readonly at: number;
  };
}

export interface RateLimiter {
  /**
   * Counts one request of `subject` (an IP, a /64 or an account) on `tier`, or `cost` requests at
   * once (a batch: all of them or none), unless a window would be overdrawn. Synchronous when the
   * store is (the in-process one).
   */
  check(tier: Tier, subject: string, cost?: number): MaybePromise<RateLimitDecision>;
}

/** One window a request counts in, as the store's counter. */
export interface WindowCounter extends CounterRequest {
  readonly name: WindowName;
}

/**
 * The two windows, hourly then daily, a request of `subject` on `tier` counts in at `time`, as the
 * store's counters (also read by the account page to show usage).
 */
export function rateLimitWindows(
  limits: TierLimits,
  tier: Tier,
  subject: string,
  time: number,
): [WindowCounter, WindowCounter] {
  return [windowAt(limits, tier, 'hourly', subject, time), windowAt(limits, tier, 'daily', subject, time)];
}

function windowAt(limits: TierLimits, tier: Tier, name: WindowName, subject: string, time: number): WindowCounter {
  const index = Math.floor(time / WINDOW_MS[name]);
  return {
    name,
    window: windowKey(name, index),
    subject,
    limit: limits[tier][name],
    expiresAt: (index + 1) * WINDOW_MS[name],
  };
}

/**
 * `rl:<window>:<index>`, the same string object for as long as the window lasts: the in-process
 * store finds its counters by it on every request, and a string that is reused keeps its hash
 * instead of being built and hashed anew.
 *
 * The tier is not part of the key: a subject's count is one number whatever its plan, so an account
 * whose plan changes mid-hour keeps what it has used (an upgrade is not a fresh allowance on top,
 * a downgrade past the new limit waits for the reset), and its usage page stays continuous.
 */
const windowKeys: Record<WindowName, { index: number; key: string }> = {
  hourly: { index: -1, key: '' },
  daily: { index: -1, key: '' },
};
function windowKey(name: WindowName, index: number): string {
  const known = windowKeys[name];
  if (known.index !== index) {
    known.index = index;
    known.key = `rl:${name}:${index}`;
  }
  return known.key;
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
    check(tier, subject, cost = 1) {
      const time = now();
      const windows = rateLimitWindows(limits, tier, subject, time);
      const result = store.consume(windows, cost);
      return isPromise(result)
        ? result.then((settled) => decide(windows, settled, cost, time))
        : decide(windows, result, cost, time);
    },
  };
}

function decide(
  [hourly, daily]: [WindowCounter, WindowCounter],
  { allowed, counts }: ConsumeResult,
  cost: number,
  time: number,
): RateLimitDecision {
  // Plain numbers rather than a state object per window: this runs on every request.
  const hourlyLeft = Math.max(0, hourly.limit - (counts[0] ?? 0));
  const dailyLeft = Math.max(0, daily.limit - (counts[1] ?? 0));
  if (!allowed) {
    // Of the windows that could not take the request (a spent one, or for a batch one with fewer
    // left than its items), the one that resets last, the daily one when both, is the one the
    // caller must wait for. Nothing was counted, so Remaining is what is still left.
    const binding = dailyLeft < cost ? daily : hourly;
    const reset = resetSeconds(binding);
    return {
      allowed: false,
      limit: hourly.limit,
      remaining: Math.min(hourlyLeft, dailyLeft),
      reset,
      refusedBy: { window: binding.name, limit: binding.limit, reset, at: time },
    };
  }
  // On a tie the daily window binds: once both run out, only the daily reset helps.
  return hourlyLeft < dailyLeft
    ? { allowed: true, limit: hourly.limit, remaining: hourlyLeft, reset: resetSeconds(hourly) }
    : { allowed: true, limit: hourly.limit, remaining: dailyLeft, reset: resetSeconds(daily) };
}

function resetSeconds(counter: WindowCounter): number {
  return Math.ceil(counter.expiresAt / 1000);
}
