import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rootAnswerKind } from './user-agent.ts';

// A route states what it is and the cross-cutting hook decides from the matched route, never from
// the raw URL.
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes under /api/v1 are limited without it; the plain-text paths outside it (`/ip`, `/json`...) set it. */
    rateLimited?: boolean;
    /**
     * From the validated body (a batch: its distinct items; a measurement: its probes), counted
     * all-or-nothing before the handler; throws the catalogue's 400 for a body that cannot be counted. Without it a request
     * counts one, as it arrives.
     */
    rateLimitCost?: (request: FastifyRequest) => number | Promise<number>;
    /** In the 429's words: "this batch has 101 items". */
    rateLimitCostText?: (request: FastifyRequest, cost: number) => string;
    /** Errors as one line of text/plain instead of JSON, same status and headers: terminals read these paths. */
    plainTextErrors?: boolean;
    /** `?api_key=` instead of the Authorization header (never both): EventSource sends no headers. */
    apiKeyInQuery?: boolean;
    /** The stream takes the response over (http/sse.ts): onSend steps do not see its end. */
    stream?: boolean;
    /**
     * The route as a tool for AI agents (mcp/tools.ts derives the tool's input from the route's
     * schema), or why it is none: every route under /api/v1 but the account API says one or the other.
     */
    agentTool?: AgentTool | { readonly none: string };
  }
}

/** What a route adds to its schema to be an MCP tool: a name, and its answer in a sentence. */
export interface AgentTool {
  /** snake_case, unique. */
  readonly name: string;
  /** A line for a person: the answer's gist (the whole JSON goes beside it). Given the route's 2xx JSON; a stream's is its `done` event with `events`. */
  readonly summary: (answer: never) => string;
  /**
   * A request that starts work elsewhere (a measurement): the events to follow as progress and the
   * answer to return, read as the caller without counting again.
   */
  readonly follow?: (answer: never) => { readonly events: string; readonly result: string };
}

/**
 * Types the summary by the route's answer (its `Static` type; for a followed route, the answer of
 * `result`); the tool runner hands it the parsed JSON.
 */
export function agentTool<Answer, Started = Answer>(
  name: string,
  summary: (answer: Answer) => string,
  follow?: (started: Started) => { events: string; result: string },
): AgentTool {
  return { name, summary, ...(follow ? { follow } : {}) } as AgentTool;
}

/** A route option may hold one hook, a list, or none: `route.onSend = [...hookList(route.onSend), step]`. */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

export const RATE_LIMITED = { rateLimited: true } as const;

/**
 * Browsers list text/html in Accept; curl (`*\/*`), wget and HTTPie do not. Derived on every
 * request once a route uses it, so a substring test, not a full Accept parser.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes('text/html') === true;
}

/**
 * One path can then be three routes (`GET /` as a page for browsers, the caller's IP as text for
 * curl, ifconfig.co's JSON for `Accept: application/json`; user-agent.ts decides), each with its
 * own options, so the rate limiter sees from the matched route whether the request is limited.
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
    deriveConstraint: (request) => rootAnswerKind(request.headers.accept, request.headers['user-agent']),
    mustMatchWhenDerived: false,
  });
}
