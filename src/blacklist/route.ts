import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { type QuestionTally, UPSTREAM_COST_RULE, type UpstreamCharges } from '../limits/upstream-cost.ts';
import type { BlacklistChecker } from './checker.ts';

const DnsblResultSchema = Type.Object(
  {
    name: Type.String({ description: 'The list.' }),
    zone: Type.String({ description: 'Its DNS zone.' }),
    listed: Type.Boolean({ description: 'True only when status is `listed`.' }),
    status: Type.Union([Type.Literal('listed'), Type.Literal('not_listed'), Type.Literal('error')], {
      description:
        '`listed`: the list returned a listing code. `not_listed`: NXDOMAIN (or no A record). `error`: the list could not answer (timeout, SERVFAIL, unreachable resolver) or refused (Spamhaus 127.255.255.252-255, RFC 5782 127.0.0.1, answers outside 127.0.0.0/8): never counted as listed.',
    }),
    return_codes: Type.Array(Type.String(), { description: 'The A records returned, e.g. `127.0.0.2`.' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: "The list's TXT explanation when listed." }),
    error: Type.Optional(Type.String({ description: 'Why the list could not answer (status `error`).' })),
  },
  { additionalProperties: false },
);

export const BlacklistReportSchema = Type.Object(
  {
    ip: Type.String(),
    total: Type.Integer({ description: 'Lists tested (8 with the default set).' }),
    listed: Type.Integer({ description: 'Lists whose status is `listed`.' }),
    clean: Type.Boolean({
      description:
        'true only when every list answered and none lists the IP (`listed == 0` and `complete`). false when a list lists it, and also when a list could not answer: its silence is not a verdict. Read `listed` and `complete` to tell the two apart.',
    }),
    complete: Type.Boolean({
      description: 'true when every list answered (`errors == 0`); false when at least one list has status `error`.',
    }),
    errors: Type.Integer({ description: 'Lists that could not answer (status `error`).' }),
    results: Type.Array(DnsblResultSchema),
    cached: Type.Boolean({ description: 'True when this report was computed within DNSBL_CACHE_SECONDS.' }),
  },
  { additionalProperties: false },
);

export function registerBlacklistRoute(
  app: FastifyInstance,
  checker: BlacklistChecker,
  charges: UpstreamCharges,
): void {
  app.get<{ Querystring: { ip: string } }>(
    '/api/v1/blacklist',
    {
      schema: {
        summary: 'Check an IPv4 address against DNS blacklists',
        description: `Every list is queried in parallel through the service resolver (an A and a TXT question per list, 16 with the default set), each bounded by DNSBL_TIMEOUT_MS. The list set is configurable (DNSBL_ZONES).\n\n${UPSTREAM_COST_RULE}`,
        tags: ['blacklist'],
        querystring: Type.Object({ ip: Type.String({ description: 'An IPv4 address.', examples: ['127.0.0.2'] }) }),
        response: { 200: okResponse(BlacklistReportSchema, 'One result per list.'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const ip = request.query.ip.trim();
      const family = isIP(ip);
      if (family === 6) {
        throw apiErrors.invalidParameter('ip', 'IPv6 is not supported by these lists; give an IPv4 address');
      }
      if (family !== 4) throw apiErrors.invalidParameter('ip', 'must be an IPv4 address such as 192.0.2.1');
      const tally: QuestionTally = { questions: 0 };
      try {
        return await checker.check(ip, tally);
      } finally {
        await charges.settle(request, reply, tally);
      }
    },
  );
}
