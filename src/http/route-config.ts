import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Route options read by cross-cutting hooks, declared once. A route states what it is (here:
 * whether it counts against the caller's limits) and the hook decides from the matched route,
 * never from the raw URL.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Counted against the caller's hourly and daily limits like an /api/v1 request. Routes under
     * /api/v1 are limited without it; the plain-text paths outside it (`/ip`, `/json`, `/` when it
     * answers text...) set it.
     */
    rateLimited?: boolean;
    /**
     * What one request of a limited route counts as, from its parsed body (a batch: its distinct
     * items), counted all-or-nothing before the handler; throwing the catalogue's 400 for a body
     * that cannot be counted. Without it a request counts one, as it arrives.
     */
    rateLimitCost?: (request: FastifyRequest) => number;
    /** What a cost over 1 is, in the 429's words ("this batch has 101 items"), when it is refused. */
    rateLimitCostText?: (request: FastifyRequest, cost: number) => string;
    /**
     * Errors (a 400 for a bad parameter, a 429) are answered as the catalogue's message on one line
     * of text/plain instead of the JSON body, with the same status and headers: the text face's
     * paths, which terminals read.
     */
    plainTextErrors?: boolean;
    /**
     * The API key may come as `?api_key=` instead of the Authorization header (never both): the
     * stream routes, which a browser's EventSource opens without headers.
     */
    apiKeyInQuery?: boolean;
    /**
     * The route answers as a stream that takes the response over (http/sse.ts): Fastify's onSend
     * steps do not see its end (the request metrics count it at onResponse).
     */
    stream?: boolean;
  }
}

/**
 * A route's hooks of one kind as a list (a route option may hold one function, a list, or none), so
 * an `onRoute` hook can add its own to the route's: `route.onSend = [...hookList(route.onSend), step]`.
 */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** The option of a route outside /api/v1 that counts like an API request. */
export const RATE_LIMITED = { rateLimited: true } as const;

/**
 * True when the client asks for HTML: browsers list text/html in Accept; curl (`*\/*`), wget and
 * HTTPie do not. Derived on every request once a route uses it, so a substring test, not a full
 * Accept parser.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes('text/html') === true;
}

/**
 * The router constraint `answers: 'html' | 'text'`, from Accept: one path can then be two routes
 * (`GET /` as a page for browsers, the caller's IP as text for curl), each with its own options,
 * so the rate limiter sees from the matched route whether the request is a limited text answer.
 */
export function registerAnswerConstraint(app: FastifyInstance): void {
  app.addConstraintStrategy({
    name: 'answers',
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (value: string) => (handlers.get(value) ?? null) as never,
        set: (value: string, handler: unknown) => {
          handlers.set(value, handler);
        },
      };
    },
    deriveConstraint: (request) => (acceptsHtml(request.headers.accept) ? 'html' : 'text'),
    mustMatchWhenDerived: false,
  });
}
