import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';

/** The record types of the API contract (the resolver itself carries more). */
export const API_RECORD_TYPES = [
  'A',
  'AAAA',
  'MX',
  'NS',
  'TXT',
  'CNAME',
  'SOA',
  'PTR',
  'SRV',
  'DS',
  'DNSKEY',
  'CAA',
  'HTTPS',
  'SVCB',
  'TLSA',
] as const;
export type ApiRecordType = (typeof API_RECORD_TYPES)[number];

export const DNS_JSON_TYPE = 'application/dns-json';

const RESOLVER = `The service speaks DNS itself to the resolvers of \`DNS_SERVERS\` (default: \`/etc/resolv.conf\`): UDP with EDNS0, TCP when an answer is truncated, random query ids and source ports, replies checked against the question and the server. Answers are cached by their TTLs, counted down in what the API returns as a resolver would; answers to queries with different DO, CD or AD bits are cached apart.`;

const DNS_DESCRIPTION = `${RESOLVER}

Values are close to what \`dig +short\` prints, without trailing dots:
A \`192.0.2.1\`; AAAA compressed lower case \`2001:db8::1\`; MX \`10 mx.example.com\`; NS, CNAME and PTR the
target name; TXT the record's character-strings joined as sent, without separators or quotes (as SPF and
DKIM read them; a string that is not UTF-8 in DNS presentation form, \`\\DDD\` per byte outside printable ASCII, never replaced); SOA \`mname rname serial refresh retry expire minimum\`; SRV \`priority weight port target\`;
DS \`key-tag algorithm digest-type DIGEST\` (digest in upper-case hex); DNSKEY \`flags 3 algorithm key\` (3 is the fixed protocol field; key in
base64); CAA \`flags tag "value"\`; TLSA \`usage selector matching-type DATA\` (upper-case hex); HTTPS and SVCB
\`priority target params\`, the params in the order sent as RFC 9460 writes them (\`alpn="h2,h3"\`, \`port=8443\`, \`ipv4hint=192.0.2.1\`,
\`ech=<base64>\`, \`ipv6hint=2001:db8::1\`, \`mandatory=alpn\`, \`no-default-alpn\`, \`dohpath\` by its RFC 9461 name where dig 9.18 writes \`key7\`, \`key<n>="..."\` for keys without a registered name), the target \`.\` for
the owner itself; RRSIG (with \`dnssec=true\`) \`type-covered algorithm labels original-ttl expiration inception
key-tag signer signature\` with the times as \`YYYYMMDDHHmmSS\` UTC and the signature in base64.
Names keep the case the server sent. \`records\` holds every answer record of the asked type (MX records sorted by preference,
lowest first, then by name; the others in the order the server sent them) and, before them, the CNAMEs on the way (their \`record_type\` is CNAME), each with its TTL as the resolver reports it
(counted down while cached). With \`dnssec=true\` the query sets the DO bit: each RRset is followed by the RRSIGs
that cover it (\`record_type\` RRSIG), and \`ad\` reports the resolver's Authenticated Data flag; netinfo does not validate signatures itself. NXDOMAIN and "no records of this type" are answers (200, \`records: []\`,
\`status\` says which); SERVFAIL (which a validating resolver answers for a zone that fails DNSSEC validation: \`/api/v1/dns-json?cd=1\` shows the data anyway), REFUSED, timeouts and unreachable servers are 502.`;

export const DnsAnswer = Type.Object(
  {
    host: Type.String({ description: 'The name queried (IDN as punycode; for PTR the reverse name).' }),
    record_type: Type.String({ description: 'The record type asked for.' }),
    status: Type.Union([Type.Literal('NOERROR'), Type.Literal('NXDOMAIN')], {
      description:
        'NOERROR: the name exists (records may still be empty: no records of this type). NXDOMAIN: no such name.',
    }),
    records: Type.Array(
      Type.Object({
        record_type: Type.String(),
        value: Type.String(),
        ttl: Type.Integer({ description: 'Seconds.' }),
        name: Type.String({ description: 'The owner name of the record (differs from host along a CNAME chain).' }),
      }),
    ),
    cached: Type.Boolean({ description: "True when the answer came from the service's DNS cache." }),
    ad: Type.Optional(
      Type.Boolean({
        description:
          "With dnssec=true only: the resolver's AD (Authenticated Data) flag, true when it validated every record of the answer with DNSSEC (along a CNAME chain asked in steps, every step). Only as trustworthy as the path to the resolver in DNS_SERVERS.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const dnsRouteSchema = {
  summary: 'DNS records of one type for a host, with TTLs',
  description: DNS_DESCRIPTION,
  operationId: 'getDnsRecords',
  tags: ['dns'],
  querystring: Type.Object({
    host: Type.String({
      description:
        'Domain name, or for PTR an IP address. IDN allowed, converted to punycode; labels up to 63 characters, the name up to 253. For PTR, an IPv4/IPv6 address (an IPv4-mapped IPv6 address is reversed as its IPv4 address) or a reverse (in-addr.arpa/ip6.arpa) name; an address with any other type is a 400 pointing to PTR. A name whose last label is a number (`127.1`, `0x7f.1`, `2130706433`: IPv4 addresses to a URL parser) and digits other than 0-9 (fullwidth, circled) are a 400, as for every host parameter of the API.',
      examples: ['example.com'],
    }),
    // The route upper-cases the value before validation, so the enum judges the contract's spelling.
    record_type: Type.Enum(API_RECORD_TYPES, {
      type: 'string',
      description: 'The record type (case-insensitive, surrounding spaces ignored).',
      examples: ['MX'],
    }),
    // No example: a viewer's "try it" form pre-fills an optional parameter's example and sends it.
    dnssec: Type.Optional(
      Type.String({
        description:
          'true (or 1) to ask for DNSSEC records (the DO bit): RRSIGs among `records`, and `ad` in the answer. false, 0 or absent: a plain query.',
      }),
    ),
  }),
  response: {
    200: okResponse(DnsAnswer, 'The answer records.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};

const DohRecord = Type.Object(
  {
    name: Type.String({ description: 'Owner name, with the trailing dot.' }),
    type: Type.Integer({ description: 'Record type as a number (1 A, 28 AAAA, 46 RRSIG, 65 HTTPS...).' }),
    TTL: Type.Integer({ description: 'Seconds, counted down while cached.' }),
    data: Type.String({
      description:
        'The RDATA as dig prints it: names with the trailing dot (MX `10 mail.example.com.`), each TXT string in double quotes, RRSIG times as `YYYYMMDDHHmmSS`, types without a presentation form in RFC 3597 form (`\\# <length> <hex>`).',
    }),
  },
  { additionalProperties: false },
);

export const DohJsonAnswer = Type.Object(
  {
    Status: Type.Integer({ description: 'The rcode: 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED...' }),
    TC: Type.Boolean({ description: 'Always false: a truncated UDP answer is asked again over TCP.' }),
    RD: Type.Boolean({ description: 'Recursion Desired, as the reply echoed it (queries always set it).' }),
    RA: Type.Boolean({ description: "The resolver's Recursion Available bit." }),
    AD: Type.Boolean({
      description:
        "The resolver's Authenticated Data bit: every record validated with DNSSEC (along a CNAME chain asked in steps, every step).",
    }),
    CD: Type.Boolean({ description: 'Checking Disabled, as the reply echoed the query’s (`cd`).' }),
    Question: Type.Array(
      Type.Object(
        { name: Type.String({ description: 'With the trailing dot.' }), type: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    Answer: Type.Optional(
      Type.Array(DohRecord, {
        description:
          'Absent when empty. The CNAMEs on the way, then the records; with do=1 each RRset is followed by its RRSIGs.',
      }),
    ),
    Authority: Type.Optional(
      Type.Array(DohRecord, {
        description: 'Absent when empty: the SOA (and with do=1, NSEC or NSEC3 and RRSIGs) of a negative answer.',
      }),
    ),
    Comment: Type.Optional(
      Type.String({ description: 'Present when the resolver failed: what it answered, and where.' }),
    ),
  },
  { additionalProperties: false },
);

export const dohJsonRouteSchema = {
  summary: "DNS answers in the JSON schema of Google's and Cloudflare's DNS-over-HTTPS APIs",
  description: `GET with \`name\`, \`type\`, \`do\`, \`cd\` as Google's (\`dns.google/resolve\`) and Cloudflare's (\`cloudflare-dns.com/dns-query\`) JSON APIs take them, answered in their schema, so a DoH JSON client can point at netinfo. The schema was checked field by field against what the two services document (Cloudflare's example answer key for key, Google's parameter rules, Cloudflare's quoted TXT \`data\`); no DoH client library was run against it. The content type is \`${DNS_JSON_TYPE}\` when the Accept header (or \`ct\`) asks for it, else \`application/json\`. NXDOMAIN is \`Status: 3\` with HTTP 200, and so are the resolver's SERVFAIL (2, which a validating resolver gives for a zone that fails DNSSEC validation), REFUSED (5), FORMERR (1) and NOTIMP (4), with a \`Comment\` naming the server; no answer at all (timeouts, unreachable servers, garbage) is a 502. Queries set AD (RFC 6840 §5.7) so that the resolver reports validation even without \`do\`. Answers come from the service's resolver and cache (\`DNS_SERVERS\`) as /api/v1/dns's do, and the endpoint is rate limited like it.`,
  operationId: 'getDnsJson',
  tags: ['dns'],
  querystring: Type.Object({
    name: Type.String({
      description:
        'The name to ask for. IDN allowed, converted to punycode and lower-cased as /api/v1/dns checks a host; a trailing dot is ignored; the RFC 4343 backslash escapes Google accepts are not.',
      examples: ['example.com'],
    }),
    type: Type.Optional(
      Type.String({
        description:
          'Record type as a mnemonic (case-insensitive, `A`, `aaaa`, `HTTPS`, `TYPE99`) or a number 1-65535; default A. ANY (255), AXFR, IXFR, OPT, TKEY, TSIG, MAILA and MAILB are refused (400): they are not records of a type (Google accepts ANY; its answer would be whatever the server picks, RFC 8482).',
      }),
    ),
    do: Type.Optional(
      Type.String({ description: 'DO bit: 1 or true to get DNSSEC records (RRSIG); 0, false or empty: not.' }),
    ),
    cd: Type.Optional(
      Type.String({
        description:
          'CD bit: 1 or true to ask the resolver not to validate (data of a bogus zone instead of SERVFAIL); 0, false or empty: not.',
      }),
    ),
    ct: Type.Optional(
      Type.String({
        description: `Content type of the answer, as Google's API takes it: empty, ${DNS_JSON_TYPE} or application/json (the binary application/dns-message is not offered: 400).`,
      }),
    ),
    edns_client_subnet: Type.Optional(
      Type.String({
        description: "Accepted for clients that send it, and ignored: netinfo never sends the client's subnet.",
      }),
    ),
    random_padding: Type.Optional(
      Type.String({ description: 'Accepted and ignored (clients pad to hide the length).' }),
    ),
  }),
  response: {
    200: okResponse(DohJsonAnswer, 'The answer, in the DoH JSON schema.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
