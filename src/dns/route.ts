import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { DnsError, dnsFailureInWords } from './errors.ts';
import { parseFlagParam } from './flag-param.ts';
import { formatRecordValue } from './format.ts';
import { normaliseQueryName, toPtrName } from './names.ts';
import { inShownOrder } from './records.ts';
import type { QueryResult, Resolver } from './resolver.ts';

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
type ApiRecordType = (typeof API_RECORD_TYPES)[number];

const VALUE_FORMATS = `Values are close to what \`dig +short\` prints, without trailing dots:
A \`192.0.2.1\`; AAAA compressed lower case \`2001:db8::1\`; MX \`10 mx.example.com\`; NS, CNAME and PTR the
target name; TXT the record's character-strings joined as sent, without separators or quotes (as SPF and
DKIM read them; a string that is not UTF-8 in DNS presentation form, \`\\DDD\` per byte outside printable ASCII); SOA \`mname rname serial refresh retry expire minimum\`; SRV \`priority weight port target\`;
DS \`key-tag algorithm digest-type DIGEST\` (digest in upper-case hex); DNSKEY \`flags 3 algorithm key\` (key in
base64); CAA \`flags tag "value"\`; TLSA \`usage selector matching-type DATA\` (upper-case hex); HTTPS and SVCB
\`priority target params\`, the params as RFC 9460 writes them (\`alpn="h2,h3"\`, \`port=8443\`, \`ipv4hint=192.0.2.1\`,
\`ech=<base64>\`, \`ipv6hint=2001:db8::1\`, \`mandatory=alpn\`, \`no-default-alpn\`, \`key<n>="..."\`), the target \`.\` for
the owner itself; RRSIG (with \`dnssec=true\`) \`type-covered algorithm labels original-ttl expiration inception
key-tag signer signature\` with the times as \`YYYYMMDDHHmmSS\` UTC and the signature in base64.
Names keep the case the server sent. \`records\` holds every answer record of the asked type (MX records sorted by preference,
lowest first, then by name; the others in the order the server sent them) and, before them, the CNAMEs on the way (their \`record_type\` is CNAME), each with its TTL as the resolver reports it
(counted down while cached). With \`dnssec=true\` the query sets the DO bit: each RRset is followed by the RRSIGs
that cover it (\`record_type\` RRSIG), and \`ad\` reports the resolver's Authenticated Data flag. NXDOMAIN and "no records of this type" are answers (200, \`records: []\`,
\`status\` says which); SERVFAIL, REFUSED, timeouts and unreachable servers are 502.`;

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

const DnsQuery = Type.Object({
  host: Type.String({
    description:
      'Domain name (IDN allowed, converted to punycode; labels up to 63 characters, the name up to 253). For PTR, an IPv4/IPv6 address or a reverse (in-addr.arpa/ip6.arpa) name.',
    examples: ['example.com'],
  }),
  // An enum, so viewers offer the names; the route upper-cases the value before validation.
  record_type: Type.String({
    enum: [...API_RECORD_TYPES],
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
});

export function describeDnsFailure(host: string, type: string, error: DnsError): string {
  const tried = error.attempts.map((attempt) => `${attempt.server}/${attempt.transport} ${attempt.code}`).join(', ');
  return `DNS lookup of ${host} ${type} failed: ${dnsFailureInWords(error)}${tried ? ` (${tried})` : ''}.`;
}

/** Turns the user's host into the name to query, or explains in a 400 why it cannot be one. */
function queryName(host: string, type: ApiRecordType): string {
  if (type === 'PTR') {
    const ptr = toPtrName(host.trim());
    if (!ptr.ok) throw apiErrors.invalidParameter('host', `for PTR, an IP address or a reverse name (${ptr.reason})`);
    return ptr.name;
  }
  if (isIP(host.trim()) !== 0) {
    throw apiErrors.invalidParameter('host', 'is an IP address; use record_type=PTR for its reverse name');
  }
  const name = normaliseQueryName(host.trim());
  if (!name.ok) throw apiErrors.invalidParameter('host', `must be a domain name (${name.reason})`);
  return name.name;
}

export function presentDnsAnswer(host: string, type: ApiRecordType, result: QueryResult, dnssec = false) {
  const answer = {
    host,
    record_type: type,
    status: result.rcode,
    records: inShownOrder(result.answers).map((record) => ({
      record_type: record.type,
      value: formatRecordValue(record),
      ttl: record.ttl,
      name: record.name,
    })),
    cached: result.fromCache,
  };
  return dnssec ? { ...answer, ad: result.flags?.ad ?? false } : answer;
}

/** `mx` and ` MX ` are MX: the enum of the schema then judges the name as written in the contract. */
function upperCaseRecordType(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const query = request.query as { record_type?: unknown };
  if (typeof query.record_type === 'string') query.record_type = query.record_type.trim().toUpperCase();
  done();
}

export function registerDnsRoute(app: FastifyInstance, resolver: Resolver): void {
  app.get<{ Querystring: { host: string; record_type: string; dnssec?: string } }>(
    '/api/v1/dns',
    {
      schema: {
        summary: 'DNS records of one type for a host, with TTLs',
        description: VALUE_FORMATS,
        tags: ['dns'],
        querystring: DnsQuery,
        response: {
          200: okResponse(DnsAnswer, 'The answer records.'),
          ...commonErrorResponses,
          ...upstreamErrorResponse,
        },
      },
      preValidation: upperCaseRecordType,
    },
    async (request) => {
      const type = request.query.record_type as ApiRecordType;
      const dnssec = parseFlagParam('dnssec', request.query.dnssec);
      const name = queryName(request.query.host, type);
      try {
        const options = dnssec ? { flags: { dnssecOk: true } } : {};
        return presentDnsAnswer(name, type, await resolver.query(name, type, options), dnssec);
      } catch (error) {
        if (error instanceof DnsError) throw apiErrors.upstream(describeDnsFailure(name, type, error));
        throw error;
      }
    },
  );
}
