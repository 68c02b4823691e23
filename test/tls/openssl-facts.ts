import { execFileSync } from 'node:child_process';

/**
 * What `openssl x509` prints about a certificate, in the shapes /ssl reports: the independent
 * reading every field of the API is compared with.
 */
export interface OpensslFacts {
  subject: string | null;
  issuer: string | null;
  issuer_org: string | null;
  serial: string;
  fingerprint: string;
  valid_from: string;
  valid_to: string;
  alt_names: string[];
  bits: number | null;
  signature_algorithm: string;
}

/** An attribute of an RFC 2253 name ('O=netinfo tests,CN=netinfo Test Issuing CA'). */
function rfc2253Attribute(name: string, key: string): string | null {
  const match = new RegExp(`(?:^|,)${key}=((?:\\\\.|[^,])*)`).exec(name);
  return match?.[1] ? match[1].replace(/\\(.)/g, '$1') : null;
}

/** 'notBefore=2026-11-22 05:15:29Z' -> '2026-11-22T05:15:29Z'. */
function isoDate(value: string): string {
  return value.replace(' ', 'T');
}

export function readWithOpenssl(certPath: string): OpensslFacts {
  const run = (args: string[]) =>
    execFileSync('openssl', ['x509', '-in', certPath, '-noout', ...args], { encoding: 'utf8' });
  const fields = run(['-subject', '-issuer', '-nameopt', 'RFC2253', '-serial', '-fingerprint', '-sha256'])
    .concat(run(['-dateopt', 'iso_8601', '-startdate', '-enddate']))
    .split('\n');
  const value = (prefix: RegExp) => {
    const line = fields.find((candidate) => prefix.test(candidate));
    if (line === undefined) throw new Error(`openssl printed no ${prefix} for ${certPath}`);
    return line.replace(prefix, '').trim();
  };
  const subject = value(/^subject=/);
  const issuer = value(/^issuer=/);
  let sanLine = '';
  try {
    sanLine = run(['-ext', 'subjectAltName']).split('\n')[1]?.trim() ?? '';
  } catch {}
  const text = run(['-text']);
  const bits = /Public-Key: \((\d+) bit\)/.exec(text)?.[1];
  return {
    subject: rfc2253Attribute(subject, 'CN'),
    issuer: rfc2253Attribute(issuer, 'CN'),
    issuer_org: rfc2253Attribute(issuer, 'O'),
    serial: value(/^serial=/),
    fingerprint: value(/^sha256 Fingerprint=/i),
    valid_from: isoDate(value(/^notBefore=/)),
    valid_to: isoDate(value(/^notAfter=/)),
    alt_names: sanLine === '' ? [] : sanLine.split(', ').map((entry) => entry.replace(/^(DNS|IP Address):/, '')),
    bits: bits === undefined ? null : Number(bits),
    signature_algorithm: /Signature Algorithm: (\S+)/.exec(text)?.[1] ?? '',
  };
}
