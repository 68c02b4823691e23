import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { MAX_REFERRALS } from './chain.ts';
import { WHOIS_TOOL } from './tool.ts';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const date = (description: string) =>
  Type.Union([Type.String(), Type.Null()], {
    description: `${description} \`YYYY-MM-DD\`, the calendar date as the registry wrote it (no time-zone shift); null when the answer gives none.`,
  });

const WhoisParsed = Type.Object(
  {
    domain_name: nullableString('The domain as the answer names it, lower case (punycode stays punycode).'),
    registrar: nullableString("The sponsoring registrar's name, without the handles and URLs some registries append."),
    creation_date: date('Registration date:'),
    expiration_date: date('Expiry date:'),
    updated_date: date('Last change:'),
    name_servers: Type.Array(Type.String(), {
      description: 'Lower case, no trailing dot, each once, in the order given; glue addresses are dropped.',
    }),
    status: Type.Array(Type.String(), {
      description:
        'The statuses as an array, because a domain usually has several. EPP codes without the ICANN URL WHOIS appends (`clientTransferProhibited`); RDAP statuses are mapped to the same codes (RFC 8056: `client transfer prohibited` -> `clientTransferProhibited`, `active` -> `ok`). A registry with its own vocabulary keeps it (`connect` at DENIC, `ACTIVE` at AFNIC).',
    }),
    dnssec: nullableString(
      'As the registry says it (`unsigned`, `signedDelegation`, `yes`, ...). From RDAP: `signedDelegation` or `unsigned`.',
    ),
    registered: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'true: the registry has a record of the domain (or of the AS number). false: the registry says it is not registered (a recognised "not found" / "available" answer, or RDAP 404). null: neither can be told (IP and network targets; answers with no record in them).',
    }),
    network_name: Type.Optional(
      nullableString(
        'IP, network and AS targets: NetName (ARIN) or netname (RIPE, APNIC, AFRINIC); for an AS number, its AS name (RDAP `name`, e.g. `GOOGLE`).',
      ),
    ),
    organisation: Type.Optional(
      nullableString(
        'IP, network and AS targets: the holder (OrgName, org-name, owner; else the first descr line; RDAP: the registrant).',
      ),
    ),
    cidr: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'IP and network targets: the block as prefixes; a range that is not one prefix is covered exactly by several.',
      }),
    ),
    range: Type.Optional(nullableString("IP and network targets: 'first - last' address of the block.")),
    country: Type.Optional(nullableString('IP, network and AS targets: ISO 3166 alpha-2 code, upper case.')),
    registry: Type.Optional(
      Type.Union(
        [
          Type.Literal('arin'),
          Type.Literal('ripe'),
          Type.Literal('apnic'),
          Type.Literal('afrinic'),
          Type.Literal('lacnic'),
          Type.Null(),
        ],
        { description: 'IP, network and AS targets: the regional registry whose database answered.' },
      ),
    ),
    asn_range: Type.Optional(
      nullableString(
        "AS targets only: the registered block holding the number, 'AS<first> - AS<last>' (`AS15169 - AS15169` for a single AS).",
      ),
    ),
  },
  { additionalProperties: false },
);

const ServerStep = Type.Object(
  {
    protocol: Type.Union([Type.Literal('whois'), Type.Literal('rdap')]),
    server: Type.String({
      description: 'WHOIS: `host:port`. RDAP: the URL requested (the final one after redirects).',
    }),
    address: nullableString('The IP address connected to; null when no connection was made.'),
    query: nullableString('WHOIS: the exact line sent (server-specific forms included). RDAP: null.'),
    referral: nullableString('WHOIS: the next server this answer named.'),
    http_status: Type.Union([Type.Integer(), Type.Null()], { description: 'RDAP: the HTTP status.' }),
    note: nullableString(
      'Why a named referral was not followed (already asked, hop limit, not a port-43 server); that the answer may be cut short (the server reset the connection after it).',
    ),
    error: nullableString('What failed with this server; null when it answered.'),
    duration_ms: Type.Integer(),
  },
  { additionalProperties: false },
);

export const WhoisAnswer = Type.Object(
  {
    target: Type.String({
      description:
        'The target as queried: punycode domain, the normalised address, the network as `address/length`, or `AS<number>`.',
    }),
    target_type: Type.Union(
      [Type.Literal('domain'), Type.Literal('ip'), Type.Literal('network'), Type.Literal('asn')],
      {
        description:
          '`domain`, `ip`, `network` (a prefix such as `8.8.8.0/24`) or `asn` (an AS number such as `AS15169`).',
      },
    ),
    raw: Type.String({
      description:
        "The most specific server's answer about the target, unprocessed (WHOIS text; for `source: rdap`, the RDAP JSON document as received).",
    }),
    parsed: WhoisParsed,
    cached: Type.Boolean({
      description:
        "true when served from the service's cache; every other field is then as it was when first looked up (see queried_at).",
    }),
    source: Type.Union([Type.Literal('whois'), Type.Literal('rdap')], {
      description: 'Which protocol produced raw and parsed.',
    }),
    servers: Type.Array(ServerStep, { description: 'Every server asked, in order, including any that failed.' }),
    queried_at: Type.String({ description: 'When the servers were asked, ISO 8601 UTC (`YYYY-MM-DDThh:mm:ssZ`).' }),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `WHOIS over port 43, following referrals, with RDAP as the fallback.

**Chain.** The lookup starts at WHOIS_SERVER (IANA by default) and follows each answer's referral
(\`refer:\`, \`whois:\`, \`Registrar WHOIS Server:\`, ARIN's \`ReferralServer: whois://\`) to the most specific
server: at most ${MAX_REFERRALS} referrals, never the same server twice. A referral to another protocol (RWHOIS,
a web page) or to a port other than 43 (\`whois.example:8043\`) is shown with a note, not followed; RDAP URLs,
from the bootstrap registry or a redirect, are asked only on ports 443 and 80 (another is a failed step saying so). Every server name is resolved through the
service's resolver and the connection goes to the address checked: a referral (ARIN's may name a host or an IP
address) to a private, loopback, link-local, multicast, reserved or metadata address is never connected to
(unless ALLOW_PRIVATE_TARGETS is \`true\` or lists a range that holds it); the first server, being the operator's
setting, is exempt. WHOIS_TIMEOUT_MS bounds each server, resolving its name included. An answer ended by a
connection reset instead of a clean close is used (some servers always end so), with a \`note\`. Some
servers get their own query syntax (ARIN \`n + <ip>\`, DENIC \`-T dn,ace <domain>\`, JPRS/JPNIC \`/e\`); \`servers\`
shows what was sent where. Answers are decoded as UTF-8, or Latin-1 when they are not valid UTF-8, and capped
at 512 KiB.

**Which answer.** The most specific answer about the target is \`raw\`; IANA's record of a TLD is never read
as the domain's. A value the registrar's answer leaves out is taken from the registry's answer when both name
the domain. A server that fails after an earlier one answered about the target does not fail the request: its
error is in \`servers\`.

**RDAP fallback.** When no WHOIS answer is about the target (the TLD runs no WHOIS server, a server failed, or
its answer holds no record), the RDAP servers named by IANA's bootstrap registry are asked over HTTPS first,
redirects followed, each host through the resolver and the same address rule, and \`source\` is \`rdap\`. The
registry's files are refreshed in the background from RDAP_BOOTSTRAP_URL once older than
RDAP_BOOTSTRAP_REFRESH_HOURS; a lookup that finds no server waits for a refresh (at most one every 10 minutes)
for at most WHOIS_TIMEOUT_MS. The shipped snapshot knows domains only: AS numbers are known from the first
refresh on, and with RDAP_BOOTSTRAP_REFRESH_HOURS=0 an AS lookup is a 502 ("names no RDAP server") until
\`npm run rdap:snapshot\` has taken IANA's files.

**Targets.** What people paste is accepted: a URL of any scheme gives its host, its port ignored
(\`https://Example.com/path\` is example.com), a trailing dot and upper case are dropped; a domain name needs at
least two labels. \`AS15169\` (any case, 0 to 4294967295) is an AS number, looked up over RDAP only (the autnum
object, from the server IANA's asn.json names): \`source\` is \`rdap\` and \`parsed\` fills \`network_name\` (the AS name),
\`organisation\`, \`country\`, \`registry\` and \`asn_range\`, with \`registered\` false when the registry has no such
number. A prefix (\`8.8.8.0/24\`, \`2001:db8::/32\`) is a network: WHOIS is asked about its first address (registries
answer with the most specific block holding it, which may be smaller than the prefix), and the RDAP fallback asks
\`ip/<prefix>\`. A prefix with bits set past its length (\`8.8.8.8/24\`) is a 400 naming the network meant.

**Errors.** 400: the target is not a domain name, IP address, network or AS number, or the only way on was a referral to a
forbidden address. 502: no server gave an answer about the target and at least one failed; the message names
each server, its address and what went wrong (refused, timed out, reset, too large, HTTP status). A domain the
registry does not know is not an error: \`parsed.registered\` is false.

**Cache.** Results are cached, in the process or in Redis with REDIS_URL (WHOIS_CACHE_SECONDS, default one hour;
results missing a failed server's answer, or cut short by a reset, 60 s; failures are not cached). Identical
lookups running at the same time share one walk. A cached response says \`cached: true\` and keeps its original \`queried_at\` and \`servers\`.
A host name below the registered domain (\`www.example.com\`) is sent as given: registries answer "not found"
for it, as the \`whois\` command does.

**Concurrency.** ${inFlightCapText(WHOIS_TOOL)}`;

export const whoisRouteSchema = {
  summary: 'WHOIS data for a domain, an IP address or network, or an AS number',
  description: DESCRIPTION,
  operationId: 'getWhois',
  tags: ['whois'],
  querystring: Type.Object({
    target: Type.String({
      description:
        'A domain name, IP address, network or AS number. IDN allowed, converted to punycode; a pasted URL gives its host; an IPv4/IPv6 address, a network (`198.51.100.0/24`) or an AS number (`AS64496`).',
      examples: ['example.com', '192.0.2.1', '198.51.100.0/24', 'AS64496'],
    }),
  }),
  response: {
    200: okResponse(WhoisAnswer, 'The answer, parsed.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
