import type { ChainTrust } from './trust.ts';

/**
 * `problems`: what is wrong or soon will be with what a server serves, as plain sentences for
 * people. Pure: the certificates' facts, the trust walk's verdict and the clock come in.
 */

/** What problems reads from one certificate of the chain as served. */
export interface ServedCertificate {
  /** CN, or the whole subject when it has none. */
  name: string;
  key_type: string;
  bits: number | null;
  signature_algorithm: string | null;
  /** Itself a trust anchor: its own signature is never checked by a client, so its algorithm does not matter. */
  anchor: boolean;
}

export interface ProblemInput {
  host: string;
  /** The chain as served, the server's certificate first. */
  served: readonly ServedCertificate[];
  validFrom: Date;
  validTo: Date;
  hostnameMatch: boolean;
  /** The names the certificate is valid for, for the mismatch sentence. */
  names: readonly string[];
  trust: ChainTrust;
  /** Issuer CN of the last certificate served, for the incomplete-chain sentence. */
  lastIssuer: string;
  /** Whether the last certificate served is self-issued (a root the server sent). */
  endsInRoot: boolean;
  now: number;
}

export const EXPIRY_WARNING_DAYS = 14;
const DAY = 86_400_000;

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RSA and DSA keys under 2048 bits and EC keys under 256; null when the key is strong enough or has no size. */
export function weakKey(certificate: Pick<ServedCertificate, 'key_type' | 'bits'>): string | null {
  const { key_type: type, bits } = certificate;
  if (bits === null) return null;
  if ((type === 'RSA' || type === 'RSA-PSS' || type === 'DSA') && bits < 2048) return `${type} ${bits} bits`;
  if (type === 'EC' && bits < 256) return `EC ${bits} bits`;
  return null;
}

/** sha1WithRSAEncryption, ecdsa-with-SHA1, dsaWithSHA1, RSA-SHA1, ... */
export function isSha1Signature(algorithm: string | null): boolean {
  return algorithm !== null && /sha-?1(?![0-9])/i.test(algorithm);
}

export function findProblems(input: ProblemInput): string[] {
  const problems: string[] = [];
  const leaf = input.served[0];
  if (input.now >= input.validTo.getTime()) problems.push(`The certificate expired on ${iso(input.validTo)}.`);
  else if (input.validTo.getTime() - input.now < EXPIRY_WARNING_DAYS * DAY) {
    problems.push(`The certificate expires within ${EXPIRY_WARNING_DAYS} days, on ${iso(input.validTo)}.`);
  }
  if (input.now < input.validFrom.getTime()) {
    problems.push(`The certificate is not valid yet: its validity starts on ${iso(input.validFrom)}.`);
  }
  if (input.trust === 'self_signed') problems.push('The certificate is self-signed and not in the trust store.');
  if (!input.hostnameMatch) {
    const names = input.names.length > 0 ? input.names.join(', ') : 'no names';
    problems.push(`The certificate does not match the name ${input.host}: it is for ${names}.`);
  }
  if (input.trust === 'unanchored') {
    problems.push(
      input.endsInRoot
        ? `The chain is incomplete: it ends in "${input.lastIssuer}", a root that is not in the trust store.`
        : `The chain is incomplete: the certificates served do not reach a trusted root ("${input.lastIssuer}", the issuer of the last one, was not sent and is not in the trust store).`,
    );
  }
  for (const [index, certificate] of input.served.entries()) {
    const whose = index === 0 ? 'The certificate' : `The chain certificate "${certificate.name}"`;
    const weak = weakKey(certificate);
    if (weak) problems.push(`${whose} has a weak key: ${weak}.`);
    if (!certificate.anchor && isSha1Signature(certificate.signature_algorithm)) {
      problems.push(`${whose} is signed with SHA-1 (${certificate.signature_algorithm}).`);
    }
  }
  if (!leaf) problems.push('The server sent no certificate.');
  return problems;
}
