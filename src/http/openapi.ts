import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './schemas.ts';

/** Documentation that only the OpenAPI document carries: the rules that apply to every route. */
const DESCRIPTION = `Network information as a public REST API: who am I, IPv4 or IPv6, DNS, WHOIS, TLS certificates,
DNS blacklists, ping and traceroute.

**Access and limits.** Every endpoint works without authentication (tier Public, counted per client
IPv4 address and per IPv6 /64). An API key sent as \`Authorization: Bearer <key>\` puts the request on its
account's tier (Free or Pro, counted per account); an invalid or revoked key is a 401, never a silent
fall-back. Two fixed windows apply to every request, aligned to the UTC hour and the UTC day; a request is
refused (429) when either is spent. Refused requests and OPTIONS requests (CORS preflights included) do not
count; every other request under /api/v1 does, errors included. \`X-RateLimit-Limit\` is the hourly maximum, \`X-RateLimit-Remaining\`
what is left before either window refuses, \`X-RateLimit-Reset\` the UNIX time at which the binding window
resets (the one that would refuse first; on a tie, the daily one). A 429 body carries \`limit\` (the limit that
refused: hourly or daily) and \`reset\` (when that window resets).

**Errors.** Every error is JSON \`{"error": "..."}\`: 400 bad parameter, 401 bad key, 404 unknown path,
405 method the path does not serve, 429 limit, 500 internal (quote the X-Request-Id), 502 an upstream
service failed. Requests that cannot be routed or read are not counted and carry no X-RateLimit-* headers:
400 malformed URL or request, 414 a path parameter over 100 characters (a 400 naming the parameter for an
address or an ASN), 431 headers over 16 KiB, 408 too slow.

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

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'netinfo API', version: '1.0.0', description: DESCRIPTION },
      tags: [
        { name: 'ip', description: "The caller's own address, any address, an AS, and many of them at once" },
        {
          name: 'text',
          description:
            'Plain text for terminals at ifconfig.co-compatible paths (outside /api/v1, counted against the same limits)',
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
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
  });
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
