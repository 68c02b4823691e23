import { type Static, Type } from 'typebox';

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
        'DNS lookups the check causes, counted as RFC 7208 section 4.6.4 does: include, a, mx, ptr, exists and redirect count one each, followed through include and redirect (redirect is ignored when the record has all). Counted as a verifier meets them, depth first, up to the first over the limit of 10 (then 11). The worst case: every term is evaluated, as for a client that matches none.',
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
      description: 'Size of the public key read from p= (RSA modulus bits; 256 for Ed25519); null when unreadable.',
    }),
    problems: problems(
      'the key: missing, revoked (empty p=), RSA under 1024 bits (weak), under 2048 (below RFC 8301 advice), unreadable key, t=y testing, syntax',
    ),
  },
  { additionalProperties: false },
);

export const MtaStsSection = Type.Object(
  {
    found: Type.Boolean({ description: 'True when `_mta-sts.<domain>` has one TXT record starting with `v=STSv1`.' }),
    record,
    id: nullableString("The policy's id= (it changes when the policy does); the policy file itself is not fetched."),
    problems: problems('the MTA-STS record: several records, a missing or malformed id'),
  },
  { additionalProperties: false },
);

export const TlsRptSection = Type.Object(
  {
    found: Type.Boolean({
      description: 'True when `_smtp._tls.<domain>` has one TXT record starting with `v=TLSRPTv1`.',
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
      description: 'False when the domain does not exist (NXDOMAIN): every section is then found: false.',
    }),
    problems: problems('the domain as a whole: it does not exist; the query limit was reached'),
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
