import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { ABUSE_TOOL } from './config.ts';
import { MAX_PARENT_LEVELS } from './service.ts';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const abuseContactProperties = {
  email: Type.String({
    description: "Where to report abuse: the e-mail address in the abuse entity's vCard.",
    examples: ['abuse@ripe.net'],
  }),
  name: nullableString("The abuse entity's name (its vCard `fn`), e.g. `Abuse Contact`; null when it has none."),
  handle: nullableString("The abuse entity's handle in the registry (`OPS4-RIPE`, `ABUSE5250-ARIN`, `IRT-APNIC-AP`)."),
  registry: Type.String({
    description:
      'The registry whose RDAP server answered: `RIPE NCC`, `ARIN`, `APNIC`, `LACNIC` or `AFRINIC` (from its host name), else that host name.',
  }),
  source: Type.String({
    description:
      "The RDAP URL whose answer holds the contact, after redirects (ARIN redirects RIPE space to RIPE's server); a parent network's URL when the address's own network names none.",
  }),
  network: Type.Object(
    {
      handle: nullableString('Its handle (`NET-8-8-8-0-2`; RIPE and APNIC write the range).'),
      name: nullableString('Its name (`GOGL`, `RIPE-NCC`).'),
      range: nullableString('Its first and last address, `first - last`.'),
    },
    { additionalProperties: false, description: 'The network whose RDAP answer names the contact.' },
  ),
};

/** The contact as `network.abuse` of /api/v1/json carries it (the route's answer holds the same fields). */
export const abuseContactObject = (description: string) =>
  Type.Object(abuseContactProperties, { additionalProperties: false, description });

const AbuseAnswer = Type.Object(
  {
    ip: Type.String({ description: 'The address asked about, in its normal form (RFC 5952 for IPv6).' }),
    ...abuseContactProperties,
    queried_at: Type.String({ description: 'When the registry was asked, ISO 8601 UTC (`YYYY-MM-DDThh:mm:ssZ`).' }),
    cached: Type.Boolean({
      description: "true when served from the service's cache; every other field is then as it was first found.",
    }),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Whom to write to about abuse from an address: the abuse contact its registry publishes over RDAP.
Also \`network.abuse\` of /api/v1/json and /api/v1/json/{ip}, found, cached and capped in flight the same way.

The RDAP server IANA's bootstrap registry names for the address (the same data
and the same requests as /api/v1/whois: RDAP_BOOTSTRAP_URL, WHOIS_TIMEOUT_MS per request, ports 443 and 80, each
host through the service's resolver and refused when private unless ALLOW_PRIVATE_TARGETS opens it, redirects
followed under the same rules) is asked \`ip/<address>\`. The contact is the entity with role \`abuse\` and an
e-mail address in its vCard, looked for among the network's entities and then those nested in them (ARIN nests it
in the organisation; RIPE NCC and APNIC put it at the top, APNIC as an IRT object). A network without one leads
to its parent (the RFC 9083 link with \`rel: "up"\`, else \`parentHandle\` when it is a range or a prefix), at most
${MAX_PARENT_LEVELS} parents up. The contact found, and the registry's answer that there is none, are kept
ABUSE_CACHE_HOURS per address (in the process, or in Redis with REDIS_URL); a failure is not. Identical lookups
running at the same time share one walk.

**Errors.** 400: \`ip\` is not an IP address, or it is in a special-purpose range (private, loopback, documentation,
6to4, ...: no regional registry holds it). 404: the registry has no network holding the address, or neither its
network nor the parents it links to names an abuse entity with an e-mail address; the message names the registry
and the network. 502: an RDAP server timed out, answered an HTTP error or something that is not an RDAP IP network,
or redirected where the service does not connect; the message names the registry, the URL and what went wrong.

**Concurrency.** ${inFlightCapText(ABUSE_TOOL)}`;

export const abuseRouteSchema = {
  summary: 'The abuse contact of an IP address, from its registry over RDAP',
  description: DESCRIPTION,
  operationId: 'getAbuseContact',
  tags: ['whois'],
  querystring: Type.Object(
    {
      ip: Type.String({
        description:
          'A public IPv4 or IPv6 address. An IPv4-mapped IPv6 address is looked up as its IPv4 address; no leading zeros, no %zone.',
        examples: ['193.0.6.139', '2001:67c:2e8:22::c100:68b'],
      }),
    },
    { additionalProperties: false },
  ),
  response: {
    200: okResponse(AbuseAnswer, 'The abuse contact.'),
    ...commonErrorResponses,
    404: { ...commonErrorResponses[400], description: 'The registry names no abuse contact for the address.' },
    ...upstreamErrorResponse,
  },
};
