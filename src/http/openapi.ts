import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { ifNoneMatchHits, weakEtag } from './etag.ts';
import { ErrorBody } from './schemas.ts';

/** Documentation that only the OpenAPI document carries: the rules that apply to every route. */
const DESCRIPTION = `Network information as a public REST API: who am I, IPv4 or IPv6, DNS, WHOIS, TLS certificates,
DNS blacklists, ping (ICMP and TCP), traceroute and MTR.

**Access and limits.** Every endpoint works without authentication (tier Public, counted per client
IPv4 address and per IPv6 /64). An API key sent as \`Authorization: Bearer <key>\` puts the request on its
account's tier (Free or Pro, counted per account); an invalid or revoked key is a 401, never a silent
fall-back. A 401 carries \`WWW-Authenticate: Bearer error="invalid_request"\` (the header is not \`Bearer <key>\`)
or \`error="invalid_token"\` (a malformed key, an unknown or revoked one, or a disabled account's), and its message
says which. Two fixed windows apply to every request, aligned to the UTC hour and the UTC day; a request is
refused (429) when either is spent. Refused requests and OPTIONS requests (CORS preflights included) do not
count; every other request under /api/v1 does, errors included. \`X-RateLimit-Limit\` is the hourly maximum, \`X-RateLimit-Remaining\`
what is left before either window refuses, \`X-RateLimit-Reset\` the UNIX time at which the binding window
resets (the one that would refuse first; on a tie, the daily one). The 429 body's fields are described in
\`ErrorBody\`; every 429 (stream caps and the account API's limits too) has \`Retry-After\`, the whole seconds
until \`reset\` (at least 1).

**Errors.** Every error is JSON \`{"error": "..."}\`: 400 bad parameter (missing, invalid, or one the operation does
not take: unknown query parameters are refused, never ignored), 401 bad key, 404 unknown path,
405 method the path does not serve, 429 limit, 500 internal (quote the X-Request-Id), 502 an upstream
service failed. Requests that cannot be routed or read are not counted and carry no X-RateLimit-* headers:
400 malformed URL or request, or raw non-ASCII bytes in the URL (percent-encode them), 414 a path parameter over
100 characters (a 400 naming the parameter for an address or an ASN) or a URL over 8 KiB, 431 headers over
16 KiB, 408 too slow, 405 a CONNECT (this is not a proxy).

**MCP.** The same operations are tools for AI agents at \`/mcp\` (Model Context Protocol, Streamable HTTP): each tool's
input is its operation's parameters, its result the operation's JSON, with the same key, limits and errors (docs/mcp.md).

**CORS.** \`Access-Control-Allow-Origin: *\` and \`Access-Control-Expose-Headers: *\` on every response: scripts on any site read every header (X-RateLimit-*, X-Request-Id, X-Data-Attribution). No cookies cross-origin; an API key in the Authorization header works (preflights allow it).

**API keys.** Format: \`nk_\` + 30 random base62 characters + a 6-character base62 CRC-32 of them (39 characters,
\`\\bnk_[0-9A-Za-z]{36}\\b\`); a key with a bad checksum is refused without a lookup. Keys are made in the
dashboard (\`/dashboard\`) or through the account API below, shown once, and stored only as an HMAC and an
AES-256-GCM ciphertext.

**Account API** (\`/api/v1/account\`, tag \`account\`). Used by the dashboard with a session cookie (HttpOnly,
SameSite=Lax; \`__Host-netinfo_session\` and Secure over HTTPS), not with API keys, and limited on its own (300
requests per hour per client; sign-ups and logins tighter) instead of by tier. Bodies are JSON only (a malformed one is a 400 quoting the parser; a \`__proto__\` key is refused). POST and
DELETE requests of a session need its \`X-CSRF-Token\` (returned by login, sign-up and \`GET /api/v1/account\`), and
requests a browser marks cross-site (\`Sec-Fetch-Site\`, or an \`Origin\` other than the host) are refused with 403.
Those paths answer the methods they list; others are 405.`;

/** `webhooks`: the requests the service sends (OpenAPI 3.1), given by the capabilities that send them. */
export async function registerOpenApi(
  app: FastifyInstance,
  webhooks: Readonly<Record<string, object>> = {},
): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'netinfo API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Every operation may send an API key, none must: `{}` is "no key" (the public tier). The
      // account API and the health checks say otherwise on their operations.
      security: [{}, { apiKey: [] }],
      // Path items as OpenAPI writes them; the plugin's type wants its own object types for each.
      webhooks: webhooks as Record<string, never>,
      tags: [
        { name: 'ip', description: "The caller's own address, any address, an AS, and many of them at once" },
        {
          name: 'text',
          description:
            'Plain text for terminals at ifconfig.co-compatible paths (outside /api/v1, counted against the same limits)',
        },
        {
          name: 'measurements',
          description:
            'Probes from many places: the instances that share Redis and MESH_SECRET are nodes, and any of them runs a measurement from all of them',
        },
        {
          name: 'monitors',
          description:
            'Checks on a schedule, from chosen nodes, with history, uptime, incidents and signed webhooks (an account’s)',
        },
        { name: 'operations', description: 'Health of the service (outside /api/v1, not rate-limited)' },
        { name: 'account', description: 'Accounts, sessions and API keys, for the dashboard (cookie sessions)' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key made in the dashboard (optional).' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'netinfo_session',
            description: 'The dashboard session (`__Host-netinfo_session` over HTTPS), set by login and sign-up.',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description: "The session's CSRF token, required with the cookie on POST and DELETE.",
          },
        },
      },
    },
    transform: withUnknownParameterAnswer,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
  });
}

const DEFAULT_SUCCESS = { description: 'Default Response' };
const UNKNOWN_PARAMETER = {
  ...Type.Ref('ErrorBody'),
  description: 'An unknown query parameter (the message names it and the ones the operation takes).',
};

/**
 * Every route refuses unknown query parameters with a 400 (http/query-params.ts), those without a
 * query of their own too: the document says so where a route lists no 400. Only the document's copy
 * of the schema changes; the route keeps its own for serialising.
 */
function withUnknownParameterAnswer({ schema, url }: { schema: FastifySchema; url: string }) {
  const responses = (schema?.response ?? {}) as Record<string, unknown>;
  if (!schema || schema.hide || '400' in responses) return { schema, url };
  // With no response of its own a route gets @fastify/swagger's default 200, which any response given here replaces.
  const success = Object.keys(responses).some((code) => code.startsWith('2')) ? {} : { 200: DEFAULT_SUCCESS };
  return { schema: { ...schema, response: { ...success, ...responses, 400: UNKNOWN_PARAMETER } }, url };
}

/** How the request reached the service: the host it addressed and whether over HTTPS (behind trusted proxies too). */
export type RequestOrigin = (request: FastifyRequest) => { host: string | undefined; secure: boolean };

/**
 * The `servers` URL: the origin the request addressed, so "try it" calls in a viewer go where the
 * document came from. A Host that is not a plain name or address with an optional port (anyone can
 * send any Host) gives `/`, the origin of the document itself.
 */
export function serverUrl(host: string | undefined, secure: boolean): string {
  const plainHost =
    /^(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/i;
  if (host === undefined || host.length > 260 || !plainHost.test(host)) return '/';
  return `${secure ? 'https' : 'http'}://${host.toLowerCase()}`;
}

/** Documents kept per server URL at most (hosts are the caller's choice, so the cache is bounded). */
const MAX_CACHED_DOCUMENTS = 16;

/**
 * `GET /api/v1/openapi.json`: the document with its `servers` entry, serialised once per origin,
 * with an ETag; `If-None-Match` with it is a 304. `Vary` names the headers the servers URL is taken from.
 */
export const openApiDocumentPlugin: FastifyPluginAsync<{ origin: RequestOrigin }> = async (app, { origin }) => {
  const documents = new Map<string, { body: string; etag: string }>();
  const served = { agentTool: { none: 'the MCP server serves it as the resource netinfo://openapi' } };
  app.get('/api/v1/openapi.json', { schema: { hide: true }, config: served }, async (request, reply) => {
    const { host, secure } = origin(request);
    const url = serverUrl(host, secure);
    let document = documents.get(url);
    if (document === undefined) {
      const body = JSON.stringify({ ...app.swagger(), servers: [{ url, description: 'This service' }] });
      document = { body, etag: weakEtag(body) };
      if (documents.size >= MAX_CACHED_DOCUMENTS) documents.clear();
      documents.set(url, document);
    }
    reply
      .header('etag', document.etag)
      .header('cache-control', 'no-cache')
      .header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto, Forwarded');
    if (ifNoneMatchHits(request.headers['if-none-match'], document.etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(document.body);
  });
};
