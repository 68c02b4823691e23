import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiErrors } from '../http/errors.ts';
import { type Caller, type CallerResolver, publicCaller } from './caller.ts';
import type { RateLimitDecision, RateLimiter } from './limiter.ts';
import { isPromise, type MaybePromise } from './maybe-async.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the rate-limit hook on limited routes. */
    caller?: Caller;
  }
}

function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.reset);
}

/**
 * Counts every request under `prefix` (errors included, so 400s and 404s carry the headers too)
 * except CORS preflights and the requests it refuses. A rejected API key is counted against the
 * caller's IP, so guessing keys is limited like any public traffic.
 *
 * A callback hook rather than an async one: with the in-process store and no API key every step is
 * synchronous, and the request goes on without a promise or a microtask (measured: about a tenth of
 * /api/v1/ipv6's server time). With Redis or a key lookup, the same steps wait for their promises.
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

  /** The caller, and the 401 to give after counting when the key was rejected. */
  function identify(request: FastifyRequest): MaybePromise<Identified> {
    const { clientIp } = request;
    try {
      const resolved = callers.resolve(clientIp, request.headers.authorization);
      if (!isPromise(resolved)) return { caller: resolved };
      return resolved.then(
        (caller) => ({ caller }),
        (error) => countedAsPublic(error, clientIp),
      );
    } catch (error) {
      return countedAsPublic(error, clientIp);
    }
  }

  /** Records the decision on the reply and says what ends the request: a 429, a 401, or nothing. */
  function apply(request: FastifyRequest, reply: FastifyReply, identified: Identified, decision: RateLimitDecision) {
    setRateLimitHeaders(reply, decision);
    if (decision.refusedBy) {
      const { window, limit, reset, at } = decision.refusedBy;
      return apiErrors.rateLimited(window, limit, reset, at);
    }
    if (identified.keyRejection) return identified.keyRejection;
    request.caller = identified.caller;
    return undefined;
  }

  function count(request: FastifyRequest, reply: FastifyReply, identified: Identified) {
    const { caller } = identified;
    const decision = limiter.check(caller.tier, caller.subject);
    if (isPromise(decision)) return decision.then((settled) => apply(request, reply, identified, settled));
    return apply(request, reply, identified, decision);
  }

  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS' || !request.url.startsWith(prefix)) return done();
    for (const path of exclude) if (isUnderPath(request.url, path)) return done();
    let outcome: MaybePromise<ApiError | undefined>;
    try {
      // Plain calls when nothing waits (in-process store, no key); closures only on the promise path.
      const identified = identify(request);
      outcome = isPromise(identified)
        ? identified.then((settled) => count(request, reply, settled))
        : count(request, reply, identified);
    } catch (error) {
      return done(error as Error);
    }
    if (isPromise(outcome)) outcome.then((refusal) => done(refusal), done);
    else done(outcome);
  });
}

interface Identified {
  caller: Caller;
  keyRejection?: ApiError;
}

/** A rejected key (401) is counted against the client's IP; any other failure propagates. */
function countedAsPublic(error: unknown, clientIp: string): Identified {
  if (!(error instanceof ApiError) || error.status !== 401) throw error;
  return { caller: publicCaller(clientIp), keyRejection: error };
}

/** `/a/b` is under `/a` (as are `/a`, `/a?x` and `/a/`), `/ab` is not. */
export function isUnderPath(url: string, path: string): boolean {
  if (!url.startsWith(path)) return false;
  const next = url[path.length];
  return next === undefined || next === '/' || next === '?';
}
