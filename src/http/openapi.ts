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
refused (429) when either is spent. Refused requests and CORS preflights do not count; every other request
under /api/v1 does, errors included. \`X-RateLimit-Limit\` is the hourly maximum, \`X-RateLimit-Remaining\`
what is left before either window refuses, \`X-RateLimit-Reset\` the UNIX time at which the binding window
resets (the one that would refuse first; on a tie, the daily one). A 429 body carries \`limit\` (the limit that
refused: hourly or daily) and \`reset\` (when that window resets).

**Errors.** Every error is JSON \`{"error": "..."}\`: 400 bad parameter, 401 bad key, 404 unknown path,
405 method other than GET/HEAD/OPTIONS, 429 limit, 500 internal (quote the X-Request-Id), 502 an upstream
service failed.

**CORS.** \`Access-Control-Allow-Origin: *\` on every response; the X-RateLimit-* headers are exposed.`;

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'netinfo API', version: '1.0.0', description: DESCRIPTION },
      tags: [
        { name: 'ip', description: "The caller's own address" },
        { name: 'operations', description: 'Health of the service (outside /api/v1, not rate-limited)' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key made in the dashboard (optional).' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
  });
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
