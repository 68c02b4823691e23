/**
 * One counter a request would increment: which window (`rl:hourly:493001`: every counter of
 * one window expires together) and whose (`ip:192.0.2.1`), its limit and when it expires. A shared
 * store keys it `<window>:<subject>`.
 */
export interface CounterRequest {
  readonly window: string;
  readonly subject: string;
  readonly limit: number;
  /** UNIX time in milliseconds after which the counter may be forgotten. */
  readonly expiresAt: number;
}

export interface ConsumeResult {
  /** True when every counter was below its limit and all were incremented. */
  readonly allowed: boolean;
  /** Each counter's value after the call (incremented only when allowed). */
  readonly counts: readonly number[];
}

import type { MaybePromise } from './maybe-async.ts';

/**
 * Where rate-limit counters live. `consume` is all-or-nothing: a request refused by one window
 * increments none, so 429s never count against the caller. The in-process store is the embedded
 * default; a Redis store gives every instance the same counters.
 */
export interface RateLimitStore {
  /**
   * Adds `amount` (1 by default; a batch adds its items) to every counter, if every counter stays
   * within its limit; else adds nothing. A counter with limit 0 is never incremented: `consume` then just reads its value. The
   * in-process store answers synchronously; shared stores answer with a promise.
   */
  consume(counters: readonly CounterRequest[], amount?: number): MaybePromise<ConsumeResult>;
  close(): Promise<void>;
}
