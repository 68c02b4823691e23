import type { FastifyInstance } from 'fastify';
import { ApiError, apiErrors } from '../http/errors.ts';
import { type Caller, type CallerResolver, publicCaller } from './caller.ts';
import type { RateLimitDecision, RateLimiter } from './limiter.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the rate-limit hook on limited routes. */
    caller?: Caller;
  }
}

function rateLimitHeaders(decision: RateLimitDecision): Record<string, number> {
  return {
    'x-ratelimit-limit': decision.limit,
    'x-ratelimit-remaining': decision.remaining,
    'x-ratelimit-reset': decision.reset,
  };
}

/**
 * Counts every request under `prefix` (errors included, so 400s and 404s carry the headers too)
 * except CORS preflights and the requests it refuses. A rejected API key is counted against the
 * caller's IP, so guessing keys is limited like any public traffic.
 */
export function registerRateLimiting(
  app: FastifyInstance,
  options: {
    limiter: RateLimiter;
    callers: CallerResolver;
    prefix: string;
    /** Paths under `prefix` that keep limits of their own (the cookie-authenticated account API). */
    exclude?: readonly string[];
  },
): void {
  const { limiter, callers, prefix } = options;
  const exclude = options.exclude ?? [];
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' || !request.url.startsWith(prefix)) return;
    if (exclude.some((path) => isUnderPath(request.url, path))) return;
    let caller: Caller;
    let keyRejection: ApiError | undefined;
    try {
      caller = await callers.resolve(request.clientIp, request.headers.authorization);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      keyRejection = error;
      caller = publicCaller(request.clientIp);
    }
    const decision = await limiter.check(caller.tier, caller.subject);
    reply.headers(rateLimitHeaders(decision));
    if (decision.refusedBy) {
      const { window, limit, reset } = decision.refusedBy;
      throw apiErrors.rateLimited(window, limit, reset);
    }
    if (keyRejection) throw keyRejection;
    request.caller = caller;
  });
}

/** `/a/b` is under `/a` (as are `/a`, `/a?x` and `/a/`), `/ab` is not. */
export function isUnderPath(url: string, path: string): boolean {
  if (!url.startsWith(path)) return false;
  const next = url[path.length];
  return next === undefined || next === '/' || next === '?';
}
