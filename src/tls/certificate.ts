import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { presentAltNames } from './alt-names.ts';

/** What /ssl reports about one certificate, read from it alone (no clock, no peer, no trust store). */
export interface CertificateFacts {
  /** Subject CN; null when the subject has none (certificates named only by their SANs). */
  subject: string | null;
  issuer: string | null;
  issuer_org: string | null;
  /** ISO 8601 UTC to the second: `2025-01-31T23:59:59Z`. */
  valid_from: string;
  valid_to: string;
  /** Upper-case hex, as `openssl x509 -serial` prints it. */
  serial: string;
  /** SHA-256 of the DER certificate: upper-case hex byte pairs joined by ':' (as `openssl x509 -fingerprint -sha256`). */
  fingerprint: string;
  /** RSA/DSA: modulus length; EC: the curve's size (256 for P-256); null for keys without one (Ed25519). */
  bits: number | null;
  alt_names: string[];
  key_type: string;
  /** EC keys: the curve ('P-256', or its ASN.1 name when it has no NIST one); null otherwise. */
  key_curve: string | null;
  /** As OpenSSL names it: 'sha256WithRSAEncryption', 'ecdsa-with-SHA256'. */
  signature_algorithm: string | null;
}

type Name = Record<string, string | string[] | undefined>;

/** An attribute of a distinguished name; when repeated, the last (most specific) one. */
function attribute(name: Name | undefined, key: string): string | null {
  const value = name?.[key];
  const last = Array.isArray(value) ? value.at(-1) : value;
  return last === undefined || last === '' ? null : last;
}

const KEY_TYPES: Readonly<Record<string, string>> = {
  rsa: 'RSA',
  'rsa-pss': 'RSA-PSS',
  ec: 'EC',
  dsa: 'DSA',
  ed25519: 'Ed25519',
  ed448: 'Ed448',
};

export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function describeCertificate(certificate: X509Certificate): CertificateFacts {
  const legacy = certificate.toLegacyObject() as unknown as {
    subject?: Name;
    issuer?: Name;
    subjectaltname?: string;
    bits?: number;
    nistCurve?: string;
    asn1Curve?: string;
  };
  const keyType = certificate.publicKey.asymmetricKeyType ?? 'unknown';
  return {
    subject: attribute(legacy.subject, 'CN'),
    issuer: attribute(legacy.issuer, 'CN'),
    issuer_org: attribute(legacy.issuer, 'O'),
    valid_from: isoSeconds(certificate.validFromDate),
    valid_to: isoSeconds(certificate.validToDate),
    serial: certificate.serialNumber.toUpperCase(),
    fingerprint: certificate.fingerprint256,
    bits: typeof legacy.bits === 'number' ? legacy.bits : null,
    alt_names: presentAltNames(legacy.subjectaltname),
    key_type: KEY_TYPES[keyType] ?? keyType,
    key_curve: legacy.nistCurve ?? legacy.asn1Curve ?? null,
    signature_algorithm: certificate.signatureAlgorithm ?? null,
  };
}

/** A name for a chain entry: its CN, else its whole subject on one line. */
export function displayName(certificate: X509Certificate, which: 'subject' | 'issuer'): string {
  const legacy = certificate.toLegacyObject() as unknown as { subject?: Name; issuer?: Name };
  return attribute(legacy[which], 'CN') ?? certificate[which].split('\n').join(', ');
}

/**
 * OpenSSL's verdict on the peer's certificate as its code (`CERT_HAS_EXPIRED`), or null when it was
 * trusted. Node sets `authorizationError` to that code, a string despite its declared Error type.
 */
export function authorizationErrorCode(socket: TLSSocket): string | null {
  const error = socket.authorizationError as Error | string | null | undefined;
  if (error === undefined || error === null) return null;
  return typeof error === 'string' ? error : error.message;
}

/**
 * The chain the server sent, its own certificate first, from the X509Certificate issuer links
 * (once getPeerX509Certificate() has been called, getPeerCertificate(true) no longer returns it).
 */
export function sentChain(leaf: X509Certificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: X509Certificate | undefined = leaf;
  while (current && !seen.has(current.fingerprint256) && chain.length < 10) {
    seen.add(current.fingerprint256);
    chain.push(current);
    current = current.issuerCertificate;
  }
  return chain;
}
