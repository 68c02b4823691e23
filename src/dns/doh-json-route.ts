import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import type { CachedAnswer } from './cache.ts';
import { DnsError, type DnsErrorCode } from './errors.ts';
import { parseFlagParam } from './flag-param.ts';
import { formatMasterRdata } from './format.ts';
import type { QueryFlags } from './message.ts';
import { normaliseQueryName } from './names.ts';
import type { DnsRecord } from './records.ts';
import type { Resolver } from './resolver.ts';
import { describeDnsFailure } from './route.ts';
import { isMetaType, queryableType, typeNumber } from './types.ts';

/** The content type of Google's and Cloudflare's DNS JSON APIs, given when the client asks for it. */
export const DNS_JSON_TYPE = 'application/dns-json';

// RFC 1035 §4.1.1 and RFC 6895 §2.3: the rcodes a resolver may answer with, by number.
const RCODES: Record<string, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };

const DohRecord = Type.Object(
  {
    name: Type.String({ description: 'Owner name, with the trailing dot.' }),
    type: Type.Integer({ description: 'Record type as a number (1 A, 28 AAAA, 46 RRSIG, 65 HTTPS...).' }),
    TTL: Type.Integer({ description: 'Seconds, counted down while cached.' }),
    data: Type.String({
      description:
        'The RDATA as dig prints it: names with the trailing dot (MX `10 mail.example.com.`), each TXT string in double quotes, types without a presentation form in RFC 3597 form (`\\# <length> <hex>`).',
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
        description: 'Absent when empty: the SOA (and with do=1, NSEC and RRSIGs) of a negative answer.',
      }),
    ),
    Comment: Type.Optional(
      Type.String({ description: 'Present when the resolver failed: what it answered, and where.' }),
    ),
  },
  { additionalProperties: false },
);

const DohJsonQuery = Type.Object({
  name: Type.String({
    description: 'The name to ask for (IDN allowed, converted to punycode; a trailing dot is ignored).',
    examples: ['example.com'],
  }),
  type: Type.Optional(
    Type.String({
      description:
        'Record type as a mnemonic (case-insensitive, `A`, `aaaa`, `HTTPS`, `TYPE99`) or a number 1-65535; default A. ANY (255), AXFR, IXFR, OPT, TKEY, TSIG, MAILA and MAILB are refused (400).',
    }),
  ),
  do: Type.Optional(
    Type.String({ description: 'DO bit: 1 or true to get DNSSEC records (RRSIG); 0, false or empty: not.' }),
  ),
  cd: Type.Optional(
    Type.String({
      description: 'CD bit: 1 or true to ask the resolver not to validate (data of a bogus zone instead of SERVFAIL).',
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
  random_padding: Type.Optional(Type.String({ description: 'Accepted and ignored (clients pad to hide the length).' })),
});

type DohQuery = {
  name: string;
  type?: string;
  do?: string;
  cd?: string;
  ct?: string;
  edns_client_subnet?: string;
  random_padding?: string;
};

function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

function toDohRecord(record: DnsRecord) {
  return {
    name: absolute(record.name),
    type: typeNumber(record.type) ?? 0,
    TTL: record.ttl,
    data: formatMasterRdata(record),
  };
}

/** The answer in the DoH JSON schema; sections without records are left out, as both APIs do. */
export function presentDohJson(name: string, type: number, answer: CachedAnswer) {
  // Answers a shared (Redis) cache kept from before the reply's bits were stored have none: RD and
  // RA as a recursive resolver's answer has them, and nothing claimed about validation.
  const flags = answer.flags ?? { rd: true, ra: true, ad: false, cd: false };
  return {
    Status: RCODES[answer.rcode] ?? 0,
    TC: false,
    RD: flags.rd,
    RA: flags.ra,
    AD: flags.ad,
    CD: flags.cd,
    Question: [{ name: absolute(name), type }],
    ...(answer.answers.length > 0 ? { Answer: answer.answers.map(toDohRecord) } : {}),
    ...(answer.authority.length > 0 ? { Authority: answer.authority.map(toDohRecord) } : {}),
  };
}

// A resolver's own failure is an answer in this API (Status 2, 5...), as Google and Cloudflare give it;
// no answer at all (timeouts, unreachable, garbage) stays the catalogue's 502.
const ANSWERED_FAILURES = new Set<DnsErrorCode>(['SERVFAIL', 'REFUSED', 'FORMERR', 'NOTIMP']);

function presentFailure(name: string, type: number, asked: QueryFlags, error: DnsError) {
  const last = error.attempts.at(-1);
  const flags = last?.flags ?? { rd: true, ra: false, ad: false, cd: asked.checkingDisabled === true };
  return {
    Status: RCODES[error.code] ?? 2,
    TC: false,
    RD: flags.rd,
    RA: flags.ra,
    AD: false,
    CD: flags.cd,
    Question: [{ name: absolute(name), type }],
    Comment: `${error.code} from ${error.servers.join(', ')}${
      error.code === 'SERVFAIL'
        ? ' (a validating resolver answers so when DNSSEC validation fails; cd=1 asks it not to validate)'
        : ''
    }`,
  };
}

function wantsDnsJson(accept: string | undefined, ct: string | undefined): boolean {
  if (ct !== undefined && ct.trim() !== '') return ct.trim().toLowerCase() === DNS_JSON_TYPE;
  return (accept ?? '')
    .toLowerCase()
    .split(',')
    .some((range) => range.split(';')[0]?.trim() === DNS_JSON_TYPE);
}

export function registerDohJsonRoute(app: FastifyInstance, resolver: Resolver): void {
  app.get<{ Querystring: DohQuery }>(
    '/api/v1/dns-json',
    {
      schema: {
        summary: "DNS answers in the JSON schema of Google's and Cloudflare's DNS-over-HTTPS APIs",
        description: `GET with \`name\`, \`type\`, \`do\`, \`cd\` as Google's and Cloudflare's JSON APIs take them, answered in their schema, so a DoH JSON client can point at netinfo. The content type is \`${DNS_JSON_TYPE}\` when the Accept header (or \`ct\`) asks for it, else \`application/json\`. NXDOMAIN is \`Status: 3\` with HTTP 200, and so are the resolver's SERVFAIL (2), REFUSED (5), FORMERR (1) and NOTIMP (4), with a \`Comment\`; no answer at all (timeouts, unreachable servers) is a 502. Queries set AD (RFC 6840 §5.7) so that the resolver reports validation even without \`do\`. Answers come from the service's resolver and cache (\`DNS_SERVERS\`), as /api/v1/dns.`,
        tags: ['dns'],
        querystring: DohJsonQuery,
        response: {
          200: okResponse(DohJsonAnswer, 'The answer, in the DoH JSON schema.'),
          ...commonErrorResponses,
          ...upstreamErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const ct = query.ct?.trim().toLowerCase();
      if (ct !== undefined && ct !== '' && ct !== DNS_JSON_TYPE && ct !== 'application/json') {
        throw apiErrors.invalidParameter(
          'ct',
          `must be ${DNS_JSON_TYPE} or application/json (DNS wire format is not offered)`,
        );
      }
      const typeText = query.type?.trim() || 'A';
      const type = queryableType(typeText);
      if (type === undefined) {
        throw apiErrors.invalidParameter(
          'type',
          isMetaType(typeText)
            ? `${typeText} is not a record type this endpoint asks for (ANY, AXFR, IXFR, OPT, TKEY, TSIG, MAILA, MAILB)`
            : 'must be a record type mnemonic (A, AAAA, MX, HTTPS, TYPE99...) or a number from 1 to 65535',
        );
      }
      const typeCode = typeNumber(type) ?? 0;
      const name = normaliseQueryName(query.name.trim());
      if (!name.ok) throw apiErrors.invalidParameter('name', `must be a domain name (${name.reason})`);
      const flags: QueryFlags = {
        dnssecOk: parseFlagParam('do', query.do),
        checkingDisabled: parseFlagParam('cd', query.cd),
        authenticatedData: true,
      };
      reply.type(wantsDnsJson(request.headers.accept, query.ct) ? DNS_JSON_TYPE : 'application/json; charset=utf-8');
      try {
        return presentDohJson(name.name, typeCode, await resolver.query(name.name, type, { flags }));
      } catch (error) {
        if (!(error instanceof DnsError)) throw error;
        if (ANSWERED_FAILURES.has(error.code)) return presentFailure(name.name, typeCode, flags, error);
        throw apiErrors.upstream(describeDnsFailure(name.name, typeText, error));
      }
    },
  );
}
