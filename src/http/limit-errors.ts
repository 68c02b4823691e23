import { ApiError } from './api-error.ts';

/**
 * Whole seconds from `nowMs` until `reset` (UNIX seconds), at least 1: RFC 9110's Retry-After
 * allows no fractions, and 0 would invite a retry that is refused again.
 */
export function retryAfterSeconds(reset: number, nowMs: number): number {
  return Math.max(1, Math.ceil(reset - nowMs / 1000));
}

/**
 * When `reset` (UNIX seconds) comes, as a reader says it: "14:00 UTC (in 23 minutes)". Said once in
 * a message, never as a UNIX number (that is the body's `reset`, for programs).
 */
export function resetInWords(reset: number, nowMs: number): string {
  const at = new Date(reset * 1000).toISOString().slice(11, 16);
  const minutes = Math.ceil((reset * 1000 - nowMs) / 60_000);
  if (minutes <= 1) return `${at} UTC (within a minute)`;
  if (minutes < 60) return `${at} UTC (in ${minutes} minutes)`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const hoursText = `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
  return `${at} UTC (in ${rest === 0 ? hoursText : `${hoursText} ${rest} ${rest === 1 ? 'minute' : 'minutes'}`})`;
}

/** Every 429: the body's `limit` and `reset`, and Retry-After saying the same as a delay. */
function tooMany(
  code: string,
  message: string,
  limit: number,
  reset: number,
  nowMs: number,
  extra: Record<string, unknown> = {},
): ApiError {
  return new ApiError(
    429,
    code,
    message,
    { limit, reset, ...extra },
    { 'retry-after': String(retryAfterSeconds(reset, nowMs)) },
  );
}

/** What a rate-limit 429 says beyond the window: what is left, what the request asked for, who asked. */
export interface RateLimitContext {
  /** Requests left before either window refuses (X-RateLimit-Remaining), in the body as `remaining`. */
  readonly remaining: number;
  /** What the request counts as (a batch: its distinct items); 1 for most. */
  readonly cost: number;
  /** The route's words for a cost over 1 ("this batch has 101 items"). */
  readonly costText?: string;
  /** The caller sent an API key (accepted or not): a message suggesting one would not help them. */
  readonly sentKey: boolean;
  /** The key sent was refused, so the request counted as public. */
  readonly keyRefused?: boolean;
}

/** The 429s: a rate limit spent, or a cap on streams, calls in flight or attempts reached. */
export const limitErrors = {
  rateLimited: (window: 'hourly' | 'daily', limit: number, reset: number, nowMs: number, context: RateLimitContext) => {
    const per = window === 'hourly' ? 'hour' : 'day';
    const when = resetInWords(reset, nowMs);
    const what =
      context.cost > 1 && context.remaining > 0
        ? `${context.costText ?? `this request counts as ${context.cost} requests`}; ${context.remaining} ${context.remaining === 1 ? 'request remains' : 'requests remain'} until ${when} (the limit is ${limit} requests per ${per}).`
        : `${limit} ${limit === 1 ? 'request' : 'requests'} per ${per}, all used; the counter resets at ${when}.`;
    const advice = context.keyRefused
      ? ' The API key sent was refused, so the public limit applied.'
      : context.sentKey
        ? ''
        : ' An API key (free, from /dashboard) raises the limit.';
    return tooMany('rate_limited', `Rate limit exceeded: ${what}${advice}`, limit, reset, nowMs, {
      remaining: context.remaining,
    });
  },

  /** A concurrency cap on ping/traceroute/MTR streams; `reset` is when a slot is free at the latest. */
  tooManyStreams: (scope: 'client' | 'server' | 'share', limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_streams',
      scope === 'client'
        ? `Too many streams: you already have ${limit} ping/traceroute/MTR ${limit === 1 ? 'stream' : 'streams'} open, the most one caller may have at once. Close one or wait for it to finish (by ${resetInWords(reset, nowMs)} at the latest).`
        : scope === 'share'
          ? `Too many streams: the server is busy, and while it is, one caller may have only ${limit} ping/traceroute/MTR ${limit === 1 ? 'stream' : 'streams'} open at once (fewer the busier it is), so that callers with none still get one. Close one or wait for it to finish (by ${resetInWords(reset, nowMs)} at the latest).`
          : `Too many streams: the server is running its maximum of ${limit} ping/traceroute/MTR streams. Try again shortly (a slot is free by ${resetInWords(reset, nowMs)} at the latest).`,
      limit,
      reset,
      nowMs,
    ),

  /** An in-flight cap of /ssl, /http, /mail or /whois (`what`: "/ssl checks"); `reset` is when a slot is free at the latest. */
  tooManyInFlight: (what: string, scope: 'client' | 'server' | 'share', limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_in_flight',
      scope === 'client'
        ? `Too many ${what} at once: you already have ${limit} running, the most one caller may have. Wait for one to finish (by ${resetInWords(reset, nowMs)} at the latest).`
        : scope === 'share'
          ? `Too many ${what} at once: the server is busy, and while it is, one caller may have only ${limit} running (fewer the busier it is), so that callers with none still get one. Wait for one to finish (by ${resetInWords(reset, nowMs)} at the latest).`
          : `Too many ${what} at once: the server is running its maximum of ${limit} for all callers. Try again shortly (one ends by ${resetInWords(reset, nowMs)} at the latest).`,
      limit,
      reset,
      nowMs,
    ),

  tooManyAttempts: (what: string, limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_attempts',
      `Too many ${what}: at most ${limit} per window. Try again at ${resetInWords(reset, nowMs)}.`,
      limit,
      reset,
      nowMs,
    ),
} as const;
