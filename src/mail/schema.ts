import { type Static, Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { UPSTREAM_COST_RULE } from '../limits/upstream-cost.ts';
import { MAIL_TOOL, MAX_QUERIES_PER_CHECK } from './tool.ts';

const problems = (what: string) =>
  Type.Array(Type.String(), {
    description: `Plain sentences, one per problem found with ${what}; empty when none.`,
  });
const record = Type.Union([Type.String(), Type.Null()], {
  description: 'The TXT record as published (its strings joined), or null when there is none that applies.',
});
const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const MxSection = Type.Object(
  {
    found: Type.Boolean({ description: 'True when the domain has MX records.' }),
    records: Type.Array(
      Type.Object(
        {
          preference: Type.Integer(),
          host: Type.String({ description: 'The exchange, without the trailing dot; `.` for a null MX (RFC 7505).' }),
          a: Type.Array(Type.String(), { description: 'IPv4 addresses of the host.' }),
          aaaa: Type.Array(Type.String(), { description: 'IPv6 addresses of the host.' }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Sorted by preference (lowest, most preferred, first), then host name. Addresses are looked up for the first 10 hosts.',
      },
    ),
    problems: problems(
      'the MX records: none (senders fall back to the A/AAAA address), a null MX, a host without addresses',
    ),
  },
  { additionalProperties: false },
);

export const SpfSection = Type.Object(
  {
    found: Type.Boolean({ description: 'True when the domain has a TXT record starting with `v=spf1`.' }),
    record,
    mechanisms: Type.Array(
      Type.Object(
        {
          qualifier: Type.Union([Type.Literal('+'), Type.Literal('-'), Type.Literal('~'), Type.Literal('?')], {
            description: '`+` when none is written.',
          }),
          name: Type.String({ description: 'all, include, a, mx, ptr, ip4, ip6 or exists.' }),
          value: nullableString(
            'What follows the name, without the colon (`_spf.example.com`, `192.0.2.0/24`, `/24`), or null.',
          ),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'The mechanisms of the record, in order (terms with syntax errors are left out and named in problems).',
      },
    ),
    modifiers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false }), {
      description: 'redirect, exp and any other name=value modifier, in order.',
    }),
    lookups: Type.Integer({
      description:
        'DNS lookups the check causes, counted as RFC 7208 section 4.6.4 does: include, a, mx, ptr, exists and redirect count one each, followed through include and redirect (redirect is ignored when the record has all). Counted as a verifier meets them, depth first and left to right, up to where a verifier stops with permerror: the 11th lookup or the 3rd void lookup (the problem names that term and the record it is in). The worst case: every term is evaluated, as for a client that matches none. `ptr` and names with macros (`%{i}`) are counted but not asked: they depend on the client and the message. An mx name with more than 10 MX records is a permerror too, and only its first 10 hosts are looked up.',
    }),
    void_lookups: Type.Integer({
      description:
        'Lookups that found no records or NXDOMAIN (section 4.6.4, limit 2): include/redirect targets, a and exists names, an mx name and each of its hosts without A or AAAA.',
    }),
    problems: problems(
      'SPF: none, more than one record, syntax errors, +all (also in included records), more than 10 lookups or 2 void lookups or an mx name with more than 10 MX records (naming the term where a verifier stops), an include without an SPF record, loops, failed lookups',
    ),
  },
  { additionalProperties: false },
);

export const DmarcSection = Type.Object(
  {
    found: Type.Boolean({
      description: 'True when `_dmarc.<domain>` has exactly one TXT record starting with `v=DMARC1`.',
    }),
    record,
    p: nullableString('Policy as written (lower case): none, quarantine or reject; null when absent.'),
    sp: nullableString('Policy for subdomains; null when absent (receivers then use p).'),
    pct: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Percentage of failing mail the policy applies to; null when absent (receivers use 100).',
    }),
    rua: Type.Array(Type.String(), { description: 'Aggregate report URIs.' }),
    ruf: Type.Array(Type.String(), { description: 'Failure report URIs.' }),
    adkim: nullableString('DKIM alignment, r or s; null when absent (receivers use r).'),
    aspf: nullableString('SPF alignment, r or s; null when absent (receivers use r).'),
    problems: problems('DMARC: missing record, several records, p=none, syntax errors, unknown tags'),
  },
  { additionalProperties: false },
);

export const DkimSection = Type.Object(
  {
    found: Type.Boolean({ description: 'True when the selector has a TXT record.' }),
    selector: Type.String(),
    name: Type.String({ description: 'The name asked: `<selector>._domainkey.<domain>`.' }),
    record,
    key_type: nullableString('k= (rsa when absent, or ed25519); null when the key is revoked or there is none.'),
    bits: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Size of the public key read from p= with node:crypto (RSA modulus bits, from SubjectPublicKeyInfo as published or the bare PKCS#1 key RFC 6376 names; 256 for Ed25519's 32 raw bytes); null when unreadable.",
    }),
    problems: problems(
      'the key: missing, revoked (empty p=), RSA under 1024 bits (weak: RFC 8301 says verifiers must refuse it), under 2048 (below RFC 8301 advice), unreadable key, t=y testing, syntax',
    ),
  },
  { additionalProperties: false },
);

export const MtaStsSection = Type.Object(
  {
    found: Type.Boolean({
      description:
        'True when `_mta-sts.<domain>` has one TXT record starting with `v=STSv1`. MTA-STS is optional: false is not a problem.',
    }),
    record,
    id: nullableString("The policy's id= (it changes when the policy does); the policy file itself is not fetched."),
    problems: problems('the MTA-STS record: several records, a missing or malformed id'),
  },
  { additionalProperties: false },
);

export const TlsRptSection = Type.Object(
  {
    found: Type.Boolean({
      description:
        'True when `_smtp._tls.<domain>` has one TXT record starting with `v=TLSRPTv1`. TLS-RPT is optional: false is not a problem.',
    }),
    record,
    rua: Type.Array(Type.String(), { description: 'Where reports go (mailto: or https: URIs).' }),
    problems: problems('the TLS-RPT record: several records, rua= missing or not mailto:/https:'),
  },
  { additionalProperties: false },
);

export const MailReport = Type.Object(
  {
    domain: Type.String({ description: 'The domain checked (IDN as punycode, lower case).' }),
    exists: Type.Boolean({
      description:
        'False when the domain does not exist (NXDOMAIN for its MX or TXT question): every section is then found: false.',
    }),
    problems: problems(
      'the domain as a whole: it does not exist; the query limit was reached; the time limit was reached (the sections whose lookups were still out say which). A failed lookup of one section is a problem of that section',
    ),
    mx: MxSection,
    spf: SpfSection,
    dmarc: DmarcSection,
    dkim: Type.Union([DkimSection, Type.Null()], {
      description: 'The DKIM key of dkim_selector; null when no selector was given.',
    }),
    mta_sts: MtaStsSection,
    tls_rpt: TlsRptSection,
  },
  { additionalProperties: false },
);

export type MailReport = Static<typeof MailReport>;
export type MxSection = Static<typeof MxSection>;
export type SpfSection = Static<typeof SpfSection>;

const DESCRIPTION = `Mail authentication in one call: MX with addresses, SPF with its RFC 7208 lookup count, DMARC, a DKIM key, MTA-STS and TLS-RPT. Every lookup goes through the service's resolver and cache (\`DNS_SERVERS\`, cached by TTL). The domain's own six questions (MX, TXT, \`_dmarc\`, the DKIM key, \`_mta-sts\`, \`_smtp._tls\`) are asked at once; then the MX hosts' addresses and SPF's first level together; then one level of SPF includes at a time. A cold call so waits 1 + the longest chain of SPF includes and redirects round trips (an \`mx\` term at its end adds one; at least 2 when there are MX hosts); a warm call asks nothing.

One call asks at most ${MAX_QUERIES_PER_CHECK} DNS questions, cached answers included: the fixed part is 6 plus A and AAAA of up to 10 MX hosts; SPF adds one per include, redirect or exists, two per \`a\`, and an \`mx\` term its MX question plus two per host. It takes at most ${MAIL_TOOL.timeLimitMs / 1000} s in all: each query keeps the resolver's own deadline (DNS_TIMEOUT_MS, tried up to 3 times), and past the limit nothing more is asked and a lookup still out is a problem of its section. A domain that does not exist is a 200 with \`exists: false\`; 502 only when neither its MX nor its TXT lookup got an answer (SERVFAIL, timeout). DMARC is read at \`_dmarc.<domain>\` only (no fallback to the organisational domain, which needs the Public Suffix List); tags are reported as written. The MTA-STS policy file over HTTPS is not fetched.

${UPSTREAM_COST_RULE}

${inFlightCapText(MAIL_TOOL)}`;

export const mailRouteSchema = {
  summary: 'Mail authentication of a domain: MX, SPF, DMARC, DKIM, MTA-STS, TLS-RPT',
  description: DESCRIPTION,
  operationId: 'getMailAuthentication',
  tags: ['mail'],
  querystring: Type.Object({
    domain: Type.String({
      description: 'The mail domain (IDN allowed, converted to punycode). Not an IP address.',
      examples: ['example.com'],
    }),
    dkim_selector: Type.Optional(
      Type.String({
        description:
          'The s= of a DKIM signature in a mail header; without one, DKIM is not checked. Its key at `<selector>._domainkey.<domain>` is checked (selectors such as `google`, `selector1`, `s1.mail`).',
      }),
    ),
  }),
  response: {
    200: okResponse(MailReport, 'The sections, each with found and problems.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
