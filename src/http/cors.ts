import type { FastifyInstance } from 'fastify';

/**
 * Any origin, no credentials: every response gets the same headers and a preflight is answered at
 * once (204), so this is a static header write on the hot path rather than @fastify/cors's
 * per-request origin logic (measured: about a sixth of a minimal route's throughput). Cookies
 * never cross origins (no Allow-Credentials), which the account API's CSRF defence relies on.
 */
// Every response header is readable by browser scripts (X-RateLimit-*, X-Request-Id,
// X-Data-Attribution, Cache-Control...). The wildcard means that for requests without credentials
// (Fetch standard), which is every request here: no Allow-Credentials, and a Bearer key set by the
// script is a plain header, not credentials. It also spares every response a 95-byte list, which
// Node checks character by character before sending (docs/performance.md).
const EXPOSED_HEADERS = '*';
/** What every response carries, also those made before any hook runs (http/error-handler.ts). */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS,
  // Not CORS, but as static and as universal: a browser must never sniff an API answer (a JSON
  // error quoting a caller's input, a text answer) into HTML or script.
  'x-content-type-options': 'nosniff',
} as const;
const PREFLIGHT = {
  // POST for /api/v1/batch. Safe for the account API: without Allow-Credentials no cookie crosses origins.
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  // Last-Event-ID: a cross-origin EventSource sends it when it reconnects, and must get the stream
  // routes' 204 (probes/stream/finished-stream.ts) rather than a failed preflight it would retry.
  // Mcp-*: what a browser-based MCP client (the MCP Inspector) sends to /mcp.
  'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version',
  'access-control-max-age': '86400',
};

export function registerCors(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    // header() calls rather than headers({...}), which lists the object's keys on every request.
    reply.header('access-control-allow-origin', CORS_HEADERS['access-control-allow-origin']);
    reply.header('access-control-expose-headers', CORS_HEADERS['access-control-expose-headers']);
    reply.header('x-content-type-options', CORS_HEADERS['x-content-type-options']);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.headers(PREFLIGHT).code(204).send();
      return;
    }
    done();
  });
}
