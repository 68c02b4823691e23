import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError, apiErrors } from '../http/errors.ts';
import { hookList } from '../http/route-config.ts';
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
 * Counts every request to a limited route (errors included, so 400s carry the headers too) and
 * every request that matches no route (404 and 405, whatever its path), except CORS preflights and
 * the requests it refuses. A rejected API key is counted against the caller's IP, so guessing keys
 * is limited like any public traffic.
 *
 * What is limited is decided from the route the router matched, never from the raw URL: the router
 * decodes the path before matching, so `/%61pi/v1/ipv6` is the route `/api/v1/ipv6` and must be
 * counted as it (docs/architecture.md, "Decisions are taken on the matched route"). The hook is
 * attached to each limited route when it is registered (`onRoute`), so an unlimited route (a page,
 * /healthz) pays nothing; the not-found handler gets it through one root hook that asks `is404`.
 *
 * A callback hook rather than an async one: with the in-process store and no API key every step
 * (caller, limiter, store) is synchronous, and the request goes on without a promise or a microtask.
 * Measured (bench/instructions.ts, side by side, November 2026): plain async hooks, limiter, store
 * and caller lookup cost 100.2k-103.5k main-thread instructions per /api/v1/ipv6 request against
 * 94.8k-95.5k, 6-8% more. With Redis or a key lookup, the same steps wait for their promises.
 */
export function registerRateLimiting(
  app: FastifyInstance,
  options: {
    limiter: RateLimiter;
    callers: CallerResolver;
    prefix: string;
    /** Scopes under `prefix` that keep limits of their own (the cookie-authenticated account API). */
    exclude?: readonly string[];
    /** Told of every 429 answered, with the caller's tier (netinfo_rate_limited_total). */
    onRefused?: (tier: string) => void;
    /** Requests not counted: the service's own (a mesh probe, paid for where the measurement was taken). */
    exempt?: (request: FastifyRequest) => boolean;
  },
): void {
  const { limiter, callers, prefix } = options;
  const onRefused = options.onRefused ?? (() => {});
  const exclude = options.exclude ?? [];

  /** The caller, and the 401 to give after counting when the key was rejected. */
  function identify(request: FastifyRequest, authorization = request.headers.authorization): MaybePromise<Identified> {
    const { clientIp } = request;
    try {
      const resolved = callers.resolve(clientIp, authorization);
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
  function apply(
    request: FastifyRequest,
    reply: FastifyReply,
    identified: Identified,
    decision: RateLimitDecision,
    cost: number,
  ) {
    setRateLimitHeaders(reply, decision);
    if (decision.refusedBy) {
      const { window, limit, reset, at } = decision.refusedBy;
      onRefused(identified.caller.tier);
      const costText = cost > 1 ? request.routeOptions.config.rateLimitCostText?.(request, cost) : undefined;
      return apiErrors.rateLimited(window, limit, reset, at, {
        remaining: decision.remaining,
        cost,
        costText,
        sentKey: identified.caller.tier !== 'public' || identified.keyRejection !== undefined,
        keyRefused: identified.keyRejection !== undefined,
      });
    }
    if (identified.keyRejection) return identified.keyRejection;
    request.caller = identified.caller;
    return undefined;
  }

  function count(request: FastifyRequest, reply: FastifyReply, identified: Identified, cost = 1) {
    const { caller } = identified;
    const decision = limiter.check(caller.tier, caller.subject, cost);
    if (isPromise(decision)) return decision.then((settled) => apply(request, reply, identified, settled, cost));
    return apply(request, reply, identified, decision, cost);
  }

  const exempt = options.exempt ?? (() => false);

  function limit(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (request.method === 'OPTIONS' || exempt(request)) {
      done();
      return;
    }
    let outcome: MaybePromise<ApiError | undefined>;
    try {
      // Plain calls when nothing waits (in-process store, no key); closures only on the promise path.
      const identified = identify(request);
      outcome = isPromise(identified)
        ? identified.then((settled) => count(request, reply, settled))
        : count(request, reply, identified);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (isPromise(outcome)) outcome.then((refusal) => done(refusal), done);
    else done(outcome);
  }

  /**
   * A route whose requests count as more than one (a batch): the key is checked as the request
   * arrives (a rejected key is counted as one and answered 401 there), and the count, all or
   * nothing, waits for the validated body (`preHandler`). A request refused before (415, 413, a
   * body its schema refuses) or whose body cannot be counted (400) counts as one.
   */
  const pendingCount = new WeakMap<FastifyRequest, Identified>();
  function identifyFirst(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    if (request.method === 'OPTIONS') {
      done();
      return;
    }
    let identified: MaybePromise<Identified>;
    try {
      identified = identify(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    const hold = (settled: Identified) => {
      if (settled.keyRejection) {
        const refusal = count(request, reply, settled);
        if (isPromise(refusal)) refusal.then((error) => done(error), done);
        else done(refusal);
        return;
      }
      request.caller = settled.caller;
      pendingCount.set(request, settled);
      done();
    };
    if (isPromise(identified)) identified.then(hold, done);
    else hold(identified);
  }
  async function countCost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const identified = pendingCount.get(request);
    const cost = request.routeOptions.config.rateLimitCost;
    if (identified === undefined || cost === undefined) return;
    pendingCount.delete(request);
    let items: number;
    try {
      items = await cost(request);
    } catch (error) {
      const refusal = await count(request, reply, identified);
      throw refusal ?? error;
    }
    const refusal = await count(request, reply, identified, items);
    if (refusal) throw refusal;
  }
  async function countLeftOver(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const identified = pendingCount.get(request);
    if (identified === undefined) return;
    pendingCount.delete(request);
    // The answer is already decided (a 413 or 415): the count and its headers go with it.
    const decision = await limiter.check(identified.caller.tier, identified.caller.subject);
    setRateLimitHeaders(reply, decision);
  }

  /**
   * A stream route's request, whose key may be `?api_key=` (EventSource sends no headers): read as
   * the Bearer key it stands for. Given twice (both ways, or the parameter repeated) it is a 400,
   * counted against the caller's IP like any refusal before the key is known.
   */
  function limitWithQueryKey(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const key = apiKeyParameter(request.query);
    if (key === undefined || request.method === 'OPTIONS' || exempt(request)) {
      limit(request, reply, done);
      return;
    }
    const twice =
      typeof key !== 'string'
        ? apiErrors.invalidParameter('api_key', 'is given more than once; send one key')
        : request.headers.authorization !== undefined
          ? apiErrors.invalidParameter('api_key', 'and an Authorization header were both sent; send the key one way')
          : undefined;
    const identified: MaybePromise<Identified> = twice
      ? { caller: publicCaller(request.clientIp), keyRejection: twice }
      : identify(request, `Bearer ${key}`);
    const counted = isPromise(identified)
      ? identified.then((settled) => count(request, reply, settled))
      : count(request, reply, identified);
    if (isPromise(counted)) counted.then((refusal) => done(refusal), done);
    else done(counted);
  }

  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    const limited =
      route.config?.rateLimited ?? (isUnderPath(url, prefix) && !exclude.some((scope) => isUnderPath(url, scope)));
    if (!limited) return;
    route.config = { ...route.config, rateLimited: true };
    // Route-level hooks run after the root's (request context, CORS), as these must, and first
    // among the route's own: a route that refuses a request early (wrong content type) still counts it.
    if (route.config.rateLimitCost === undefined) {
      const hook = route.config.apiKeyInQuery ? limitWithQueryKey : limit;
      route.onRequest = [hook as onRequestHookHandler, ...hookList(route.onRequest)];
      return;
    }
    route.onRequest = [identifyFirst as onRequestHookHandler, ...hookList(route.onRequest)];
    // After validation: a cost may read the body as its schema types it (a measurement's probes).
    route.preHandler = [countCost, ...hookList(route.preHandler)];
    route.onSend = [
      ...hookList(route.onSend),
      (request, reply, payload) => countLeftOver(request, reply).then(() => payload),
    ];
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) limit(request, reply, done);
    else done();
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

/** `?api_key=`: a string, or an array when repeated (the query parser's way), or undefined. */
function apiKeyParameter(query: unknown): unknown {
  return typeof query === 'object' && query !== null && 'api_key' in query ? query.api_key : undefined;
}

/** The route `/a/b` is under `/a` (as are `/a`, `/a/*` and `/a/`), `/ab` is not. */
export function isUnderPath(url: string, path: string): boolean {
  if (!url.startsWith(path)) return false;
  const next = url[path.length];
  return next === undefined || next === '/' || next === '?';
}
