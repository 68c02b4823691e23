import { Type } from 'typebox';
import { callerSpecific, commonErrorResponses, okResponse } from '../http/schemas.ts';
import { ASN_PARAMETER_HINT, AsnBody } from './answers/asn-answer.ts';
import { IpInfoBody } from './answers/json-schema.ts';
import { withAttribution } from './attribution.ts';
import { IP_PARAMETER_HINT } from './ip-param.ts';

export const MAX_BATCH_ITEMS = 1_000;
export const BATCH_BODY_LIMIT_BYTES = 1_048_576;
/**
 * Reverse lookups a batch may have running at once, across all batches (joining one already in
 * flight takes no slot). 32 keeps a 1,000-address batch from flooding the resolver while a batch
 * of 1,000 fresh addresses still finishes in about 1000 / 32 x the resolver's time per lookup.
 */
export const BATCH_HOSTNAME_CONCURRENCY = 32;

const DATA_DESCRIPTION = `Fields whose data is missing are omitted, never guessed: with the default data only the datacenter lists
and the words of the AS name can decide \`type\`, so many addresses have none.

Data: a City database (MaxMind GeoLite2 City shipped with the service, DB-IP City Lite or GeoLite2 once the
service's refresh (DATA_REFRESH_HOURS, 24 by default) or \`npm run data:update\` downloaded it, or the operator's own GEOIP_CITY_DB), ASN data (ip-location-db's RouteViews + RIR +
DB-IP ASN Lite compilation, DB-IP ASN Lite or GeoLite2 ASN, or GEOIP_ASN_DB), and security feeds (the Tor
Project's exit list, X4BNet's VPN and datacenter lists, FireHOL's open-proxy list, an optional GeoIP2
Anonymous IP database). The operator's file wins, else what the refresh installed, else the embedded default. New data
is swapped in while the service runs; one answer always comes from one consistent set.

Attribution: the \`X-Data-Attribution\` header names the sources whose licences ask for credit, e.g.
"GeoLite2 data created by MaxMind, available from https://www.maxmind.com" and "IP Geolocation by DB-IP
(https://db-ip.com)". A page that shows these answers should show that credit (DB-IP asks for a link).`;

const REUSE_DESCRIPTION = `\`hostname\` is asked of the service's resolver (DNS_SERVERS, cached by TTL); an address whose name came too
late is not asked about again for a minute. An answer is reused for the same address for up to 60 s, never
across a data update (one cache for /api/v1/json, /api/v1/json/{ip} and /json).`;

const JSON_DESCRIPTION = `Geolocation, network, kind, class, reverse name and security indicators of the caller's own IP
address (see "The caller's IP" for proxies). ${REUSE_DESCRIPTION} ${DATA_DESCRIPTION}`;

const JSON_IP_DESCRIPTION = `The same answer as /api/v1/json, about any IPv4 or IPv6 address: what /api/v1/json answers a client
connecting from that address (hostname through the resolver, special-purpose addresses answered with \`special\`
and \`security.bogon\`). An IPv4-mapped IPv6 address (\`::ffff:8.8.8.8\`) is answered about its IPv4 address,
with \`mappedFrom\` saying so. Refused with a 400 naming the parameter: anything that is not an address,
leading zeros (\`010.1.1.1\`), an IPv6 zone index (\`fe80::1%25eth0\`), \`8.8.8.8%2F24\` (percent-decoded first,
then refused), more than 45 characters (over 100 the router refuses it first, with the same 400). One request
against the limits. ${REUSE_DESCRIPTION} ${DATA_DESCRIPTION}`;

const ASN_DESCRIPTION = `An autonomous system as the loaded ASN data knows it: its organisation and every range the data
attributes to it, as sorted CIDRs (touching ranges merged; a range that is no single CIDR becomes the fewest
CIDRs that cover it), with their counts and the number of IPv4 addresses. AS numbers up to 2^32 - 1. \`type\` and \`security\` come from the
ASN-level rules and lists (X4BNet's VPN and datacenter ASN lists, once the refresh or \`npm run data:update\` installed them). \`country\` is
omitted: the ASN data has no country of registration, and one derived from where the prefixes are
geolocated would be a guess.

The prefixes come from the same ASN data as /api/v1/json's \`network\` (the embedded ip-location-db compilation,
the DB-IP or GeoLite2 ASN database \`npm run data:update\` installs, or GEOIP_ASN_DB, whose search tree is walked
to list its networks, IPv4 aliases in an IPv6 tree skipped), indexed by AS once per data load; an AS's answer is
kept until the next load. 503 while no ASN data is loaded.`;

const BATCH_DESCRIPTION = `Many addresses and ASNs in one request. The body is a JSON array of 1 to ${MAX_BATCH_ITEMS.toLocaleString('en')}
strings, each an IPv4 or IPv6 address or an ASN written \`AS123\` (a bare number is not taken as an ASN). The answer
is one object whose keys are the items as sent (compared as sent: \`2001:db8::1\` and \`2001:DB8::1\` are two keys)
and whose values are what \`/api/v1/json/{ip}\` or \`/api/v1/asn/{asn}\` would answer, or
\`{"error": "..."}\` for an item that is invalid or unknown: one bad item never fails the batch. An item sent
twice is answered once.

\`fields\` applies to every item with the names of its own answer: \`fields=ip,location.countryCode,asn,name\`
keeps \`ip\` and \`location.countryCode\` of each address and \`asn\` and \`name\` of each AS (\`type\` and
\`security\` are in both answers). A \`fields\` that names nothing an address's answer has while the batch holds an
address, or nothing an AS's answer has while it holds an AS, is a 400 saying so, rather than \`{}\` for those items.

\`hostname\` is left out unless \`fields\` names it (a reverse lookup waits for a DNS server, where the rest is read
from memory); then reverse lookups run at most ${BATCH_HOSTNAME_CONCURRENCY} at a time across all
batches (a lookup already running for /api/v1/json is shared), each under HOSTNAME_TIMEOUT_MS. An address's answer
without \`hostname\` is kept (50,000 addresses, 10 minutes, never across a data update).

Counting: each distinct item counts as one request against the caller's hourly and daily limits (the POST
itself counts as its items, not one more). A batch larger than what remains is refused whole with the 429
body and counts nothing; the X-RateLimit-* headers show the state after the batch (after a refused one the
unchanged state: Remaining says how large a batch would still pass). The key is checked when the request
arrives; the items are counted, all or nothing, once the body is read. A request that cannot be counted by its
items (400, 401, 413, 415) counts as one request.

Refused whole: a body that is not JSON, not an array, empty, over ${MAX_BATCH_ITEMS.toLocaleString('en')} items, or has an item
that is not a string (400 saying which); a body over 1 MB (413); a Content-Type other than application/json (415).`;

export const FIELDS_DESCRIPTION =
  'Keep only these parts of the answer: a comma-separated list of top-level names or dotted paths, e.g. `ip,location.countryCode,network.asn`. A field that is unknown for the address stays absent (even `ip` and `security` are left out unless named). A name no answer can have is a 400 listing the valid names.';

export const FieldsParameter = Type.Optional(Type.String({ maxLength: 2000, description: FIELDS_DESCRIPTION }));
const FieldsQuery = Type.Object({ fields: FieldsParameter }, { additionalProperties: false });

export const IpFamily = Type.Object(
  {
    ip: Type.String({ description: 'The client IP address (IPv4-mapped IPv6 is reported as IPv4).' }),
    is_ipv4: Type.Boolean({ description: 'True if the client connects over IPv4.' }),
    is_ipv6: Type.Boolean({ description: 'True if the client connects over native IPv6.' }),
    protocol: Type.Union([Type.Literal('IPv4'), Type.Literal('IPv6')]),
    timestamp: Type.String({ description: 'UTC time of the answer, `YYYY-MM-DDThh:mm:ssZ`.' }),
  },
  { additionalProperties: false },
);

export const jsonResponses = {
  200: withAttribution(callerSpecific(okResponse(IpInfoBody, 'What the service knows about the address.'))),
  ...commonErrorResponses,
};

/** /json and /json/{ip} alone: `network.abuse` asks a registry. */
const jsonRouteResponses = {
  ...jsonResponses,
  502: {
    ...commonErrorResponses[400],
    description: "`fields` named `network.abuse` and the registry's RDAP server failed (the message names it).",
  },
};

export const ipFamilyRouteSchema = {
  summary: 'Does the client connect over IPv4 or IPv6?',
  operationId: 'getIpFamily',
  tags: ['ip'],
  response: {
    200: callerSpecific(okResponse(IpFamily, 'The client address and its family.')),
    ...commonErrorResponses,
  },
};

export const jsonRouteSchema = {
  summary: 'IP information about the caller: location, network, type, class, hostname, security',
  description: JSON_DESCRIPTION,
  operationId: 'getCallerIpInfo',
  tags: ['ip'],
  querystring: FieldsQuery,
  response: jsonRouteResponses,
};

export const jsonIpRouteSchema = {
  summary: 'IP information about any address: location, network, type, class, hostname, security',
  description: JSON_IP_DESCRIPTION,
  operationId: 'getIpInfo',
  tags: ['ip'],
  params: Type.Object({ ip: Type.String({ description: `The address: ${IP_PARAMETER_HINT}.` }) }),
  querystring: FieldsQuery,
  response: jsonRouteResponses,
};

export const asnRouteSchema = {
  summary: 'An autonomous system: organisation, prefixes (IPv4 and IPv6 CIDRs), type, ASN lists',
  description: ASN_DESCRIPTION,
  operationId: 'getAsn',
  tags: ['ip'],
  params: Type.Object({ asn: Type.String({ description: `The AS: ${ASN_PARAMETER_HINT}.` }) }),
  response: {
    200: withAttribution(okResponse(AsnBody, 'The AS and its prefixes.')),
    ...commonErrorResponses,
    404: { ...commonErrorResponses[400], description: 'The loaded ASN data has no range of this AS.' },
    503: { ...commonErrorResponses[400], description: 'No ASN data is loaded (it failed to load).' },
  },
};

const ItemError = Type.Object(
  { error: Type.String({ description: 'Why this item has no answer.' }) },
  { additionalProperties: false },
);

export const batchRouteSchema = {
  summary: `Up to ${MAX_BATCH_ITEMS.toLocaleString('en')} addresses and ASNs in one request, each counted as one request`,
  description: BATCH_DESCRIPTION,
  operationId: 'getIpInfoBatch',
  tags: ['ip'],
  querystring: FieldsQuery,
  body: Type.Array(Type.String(), {
    minItems: 1,
    maxItems: MAX_BATCH_ITEMS,
    description: 'IPv4 or IPv6 addresses and ASNs (`AS15169`).',
    examples: [['8.8.8.8', '2001:4860:4860::8888', 'AS15169']],
  }),
  response: {
    200: withAttribution(
      okResponse(
        Type.Record(Type.String(), Type.Union([IpInfoBody, AsnBody, ItemError])),
        'The answer per distinct item, keyed by the item as sent.',
      ),
    ),
    ...commonErrorResponses,
    413: { ...commonErrorResponses[400], description: 'The body is over 1 MB.' },
    415: { ...commonErrorResponses[400], description: 'The Content-Type is not application/json.' },
  },
};
