import { createHash } from 'node:crypto';
import type { RateLimitStore } from '../limits/store.ts';

/**
 * Fixed windows, per client counted like the public tier (IPv4 address, IPv6 /64).
 * - `api`: generous for a person, a wall for a script.
 * - `loginClient`: password guessing across many emails.
 * - `loginEmail`: guessing one account's password from many addresses. Counted whether or not the
 *   account exists, and before the password is checked, so neither the count nor the refusal tells
 *   whether an email has an account. The price: someone can hold an email's logins back for the
 *   rest of a 15-minute window.
 */
export const ACCOUNT_LIMITS = {
  api: { limit: 300, windowMs: 3_600_000 },
  signup: { limit: 10, windowMs: 3_600_000 },
  loginClient: { limit: 20, windowMs: 900_000 },
  loginEmail: { limit: 10, windowMs: 900_000 },
} as const;

export type AccountLimitName = keyof typeof ACCOUNT_LIMITS;

export interface AccountLimitDecision {
  readonly allowed: boolean;
  /** Of the first counter asked for: its limit, what is left, and its reset (UNIX seconds). */
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  /** When refused: the counter that refused. */
  readonly refusedBy?: { readonly name: AccountLimitName; readonly limit: number; readonly reset: number };
}

export interface AccountLimiter {
  /** Counts one attempt against every named counter, all or nothing. */
  consume(counters: readonly { name: AccountLimitName; subject: string }[]): Promise<AccountLimitDecision>;
}

/** Counter subjects never hold an email in clear (the store may be a shared Redis). */
export function emailSubject(email: string): string {
  return `email:${createHash('sha256').update(email).digest('hex').slice(0, 32)}`;
}

export function createAccountLimiter(store: RateLimitStore, now: () => number): AccountLimiter {
  return {
    async consume(counters) {
      const time = now();
      const windows = counters.map(({ name, subject }) => {
        const { limit, windowMs } = ACCOUNT_LIMITS[name];
        const index = Math.floor(time / windowMs);
        return { name, limit, resetMs: (index + 1) * windowMs, window: `account:${name}:${index}`, subject };
      });
      const result = await store.consume(
        windows.map(({ window, subject, limit, resetMs }) => ({ window, subject, limit, expiresAt: resetMs })),
      );
      const first = windows[0];
      if (!first) throw new Error('no counter to consume');
      const decision = {
        allowed: result.allowed,
        limit: first.limit,
        remaining: Math.max(0, first.limit - (result.counts[0] ?? 0)),
        reset: Math.ceil(first.resetMs / 1000),
      };
      if (result.allowed) return decision;
      const refusing = windows.find((window, index) => (result.counts[index] ?? 0) >= window.limit) ?? first;
      return {
        ...decision,
        refusedBy: { name: refusing.name, limit: refusing.limit, reset: Math.ceil(refusing.resetMs / 1000) },
      };
    },
  };
}
