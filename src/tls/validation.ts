import type { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { describeCertificate } from './certificate.ts';
import { type ChainTrust, judgeChainTrust, type TrustStore } from './trust.ts';

/**
 * Why a certificate is not valid for a host, from three independent checks: the chain as OpenSSL
 * verified it against the trust store, the validity dates against the clock, and the name. OpenSSL
 * stops at its first error (an expired self-signed certificate is reported only as expired), so the dates
 * and the name are checked here whatever the chain said, and every reason found is listed.
 */

/** Every reason, most fundamental first: without trust the dates and name prove nothing. */
export const VALIDATION_CODES = [
  'self_signed',
  'unknown_issuer',
  'untrusted_chain',
  'expired',
  'not_yet_valid',
  'name_mismatch',
] as const;

export type ValidationCode = (typeof VALIDATION_CODES)[number];

export interface ValidationProblem {
  code: ValidationCode;
  message: string;
}

export interface ValidationInput {
  host: string;
  /** tls.TLSSocket#authorizationError: OpenSSL's code ('CERT_HAS_EXPIRED'), or null when the chain verified. */
  chainError: string | null;
  /**
   * The chain walked independently of OpenSSL (trust.ts); consulted when OpenSSL's first error is
   * a date, which hides whether the chain was trusted.
   */
  chainTrust: 'anchored' | 'self_signed' | 'unanchored';
  /** What tls.checkServerIdentity said about the host, or null when the name matches. */
  nameError: string | null;
  issuer: string | null;
  validFrom: Date;
  validTo: Date;
  names: string[];
  now: number;
}

const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

const DATE_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function chainProblem(code: string, issuer: string | null): ValidationProblem | null {
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return { code: 'self_signed', message: 'the certificate is self-signed and not in the trust store' };
  }
  if (code === 'SELF_SIGNED_CERT_IN_CHAIN') {
    return { code: 'unknown_issuer', message: 'the chain ends in a self-signed root that is not in the trust store' };
  }
  if (UNKNOWN_ISSUER.has(code)) {
    const who = issuer ? `"${issuer}"` : 'the issuer';
    return {
      code: 'unknown_issuer',
      message: `${who} is not in the trust store and the server sent no chain to a trusted root (${code})`,
    };
  }
  // Dates and the name are judged below for the server's own certificate; these codes can also
  // come from an intermediate, which is said so.
  if (code === 'CERT_HAS_EXPIRED') return { code: 'expired', message: 'a certificate in the chain has expired' };
  if (code === 'CERT_NOT_YET_VALID')
    return { code: 'not_yet_valid', message: 'a certificate in the chain is not valid yet' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return null;
  return { code: 'untrusted_chain', message: `the chain does not verify (${code})` };
}

export function findValidationProblems(input: ValidationInput): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (input.now >= input.validTo.getTime()) {
    problems.push({ code: 'expired', message: `the certificate expired at ${iso(input.validTo)}` });
  }
  if (input.now < input.validFrom.getTime()) {
    problems.push({ code: 'not_yet_valid', message: `the certificate is not valid before ${iso(input.validFrom)}` });
  }
  if (input.nameError !== null) {
    const names = input.names.length > 0 ? input.names.join(', ') : 'no names';
    problems.push({
      code: 'name_mismatch',
      message: `the certificate is not valid for ${input.host}: it names ${names}`,
    });
  }
  if (input.chainError !== null) {
    const problem = chainProblem(input.chainError, input.issuer);
    // The server's own certificate's dates are reported above; a chain date error repeats them.
    if (problem && !problems.some((known) => known.code === problem.code)) problems.push(problem);
    if (DATE_ERRORS.has(input.chainError) && input.chainTrust !== 'anchored') {
      const hidden =
        input.chainTrust === 'self_signed' ? 'DEPTH_ZERO_SELF_SIGNED_CERT' : 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY';
      const trustProblem = chainProblem(hidden, input.issuer);
      if (trustProblem) problems.push(trustProblem);
    }
  }
  return problems.sort((a, b) => VALIDATION_CODES.indexOf(a.code) - VALIDATION_CODES.indexOf(b.code));
}

export function daysRemaining(validTo: Date, now: number): number {
  return Math.floor((validTo.getTime() - now) / 86_400_000);
}

/** What a handshake showed, for judgeCertificate. */
export interface ServedCertificate {
  host: string;
  leaf: X509Certificate;
  /** The chain the server sent, its own certificate first (sentChain). */
  chain: readonly X509Certificate[];
  /** tls.TLSSocket#authorizationError (authorizationErrorCode), or null. */
  chainError: string | null;
  store: TrustStore;
  now: number;
}

export interface CertificateVerdict {
  /** Empty when valid; the main reason first. */
  problems: ValidationProblem[];
  trust: ChainTrust;
  hostnameMatch: boolean;
  /** The names the certificate is valid for: its SANs, else its CN. */
  names: string[];
}

/**
 * The one verdict on a served certificate, for every route that reports one (/ssl, /http): Node's
 * codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID...) become
 * the VALIDATION_CODES here and nowhere else.
 */
export function judgeCertificate(served: ServedCertificate): CertificateVerdict {
  const { leaf, host } = served;
  const facts = describeCertificate(leaf);
  const nameError = tls.checkServerIdentity(host, leaf.toLegacyObject());
  const trust = judgeChainTrust(served.chain, served.store);
  const names = facts.alt_names.length > 0 ? facts.alt_names : facts.subject ? [facts.subject] : [];
  const problems = findValidationProblems({
    host,
    chainError: served.chainError,
    chainTrust: trust,
    nameError: nameError ? nameError.message : null,
    issuer: facts.issuer,
    validFrom: leaf.validFromDate,
    validTo: leaf.validToDate,
    names,
    now: served.now,
  });
  return { problems, trust, hostnameMatch: nameError === undefined, names };
}
