import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { UPSTREAM_COST_RULE } from '../limits/upstream-cost.ts';
import { DEFAULT_DNSBLS } from './lists.ts';

const DnsblResultSchema = Type.Object(
  {
    name: Type.String({ description: 'The list.' }),
    zone: Type.String({
      description:
        'Its DNS zone. A label of 20 or more letters and digits (a Spamhaus DQS or Abusix access key) reads `[key]`, here and in every message: `[key].zen.dq.spamhaus.net`.',
    }),
    listed: Type.Boolean({ description: 'True only when status is `listed`.' }),
    status: Type.Union([Type.Literal('listed'), Type.Literal('not_listed'), Type.Literal('error')], {
      description:
        '`listed`: the list returned a listing code. `not_listed`: NXDOMAIN (or no A record). `error`: the list could not answer (timeout, SERVFAIL, unreachable resolver) or refused (Spamhaus 127.255.255.252-255, RFC 5782 127.0.0.1, answers outside 127.0.0.0/8 from a resolver that rewrites missing names): never counted as listed.',
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
    cached: Type.Boolean({
      description:
        'True when this report was computed within DNSBL_CACHE_SECONDS (30 s at most when a list failed) and is reused.',
    }),
  },
  { additionalProperties: false },
);

export const blacklistRouteSchema = {
  summary: 'Check an IPv4 address against DNS blacklists',
  description: `Every list is queried in parallel through the service resolver (an A and a TXT question per list, 16 with the default set), each bounded by DNSBL_TIMEOUT_MS, so the answer takes as long as the slowest list. The list set is configurable (DNSBL_ZONES replaces it whole); the default: ${DEFAULT_DNSBLS.map((list) => `${list.name} (${list.zone})`).join(', ')}. Spamhaus and Barracuda refuse queries that arrive through large public resolvers (an \`error\` here): point DNS_SERVERS at your own recursive resolver, or use a Spamhaus DQS zone.\n\n${UPSTREAM_COST_RULE}`,
  operationId: 'getBlacklistReport',
  tags: ['blacklist'],
  querystring: Type.Object({
    ip: Type.String({
      description: 'An IPv4 address. IPv6 is refused (400): these lists publish IPv4 data only.',
      examples: ['127.0.0.2'],
    }),
  }),
  response: {
    200: okResponse(BlacklistReportSchema, 'One result per list.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
