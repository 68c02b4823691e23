import { rateLimitWindows } from './limiter.ts';
import type { RateLimitStore } from './store.ts';
import type { Tier, TierLimits } from './tiers.ts';

export interface WindowUsage {
  readonly used: number;
  readonly limit: number;
  /** UNIX seconds at which the window resets. */
  readonly reset: number;
}

/**
 * How much of its hourly and daily allowance a subject has used, read without counting: a counter
 * asked for with limit 0 is refused, so no store increments it, and its current value comes back.
 * One counter per call, because a refusing store may stop at the first counter it refuses.
 */
export async function readUsage(
  store: RateLimitStore,
  limits: TierLimits,
  tier: Tier,
  subject: string,
  time: number,
): Promise<{ hourly: WindowUsage; daily: WindowUsage }> {
  const [hourly, daily] = await Promise.all(
    rateLimitWindows(limits, tier, subject, time).map(async (window) => {
      const result = await store.consume([{ ...window, limit: 0 }]);
      return { used: result.counts[0] ?? 0, limit: window.limit, reset: Math.ceil(window.expiresAt / 1000) };
    }),
  );
  return { hourly: hourly as WindowUsage, daily: daily as WindowUsage };
}
