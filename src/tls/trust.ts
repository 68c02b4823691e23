import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';

/**
 * A second opinion on trust, for when OpenSSL's verdict hides it: OpenSSL stops at its first error,
 * and for an expired certificate that error is the date, whether or not the chain reaches a trusted
 * root. Walking the chain the server sent, link by verified link, up to a certificate of the trust
 * store tells a self-signed or unknown-issuer certificate apart from a trusted one that merely
 * expired. The same walk says whether the chain served is complete (`chain_complete`).
 */
export type ChainTrust = 'anchored' | 'self_signed' | 'unanchored';

export interface TrustStore {
  readonly fingerprints: ReadonlySet<string>;
  /** Anchors by subject, to find the issuer of the last certificate the server sent. */
  readonly bySubject: ReadonlyMap<string, readonly X509Certificate[]>;
}

function certificatesIn(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
}

/**
 * The given PEM certificates, or Node's default store (its bundled Mozilla roots, NODE_EXTRA_CA_CERTS,
 * and the system store when Node runs with --use-system-ca): the same anchors OpenSSL verifies against.
 */
export function loadTrustStore(pems?: readonly string[]): TrustStore {
  const anchors = (pems ?? tls.getCACertificates('default')).flatMap(certificatesIn);
  const bySubject = new Map<string, X509Certificate[]>();
  for (const anchor of anchors) bySubject.set(anchor.subject, [...(bySubject.get(anchor.subject) ?? []), anchor]);
  return { fingerprints: new Set(anchors.map((anchor) => anchor.fingerprint256)), bySubject };
}

function signedBy(certificate: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** Issued by itself and signed with its own key (its key usage need not allow signing certificates). */
function selfSigned(certificate: X509Certificate): boolean {
  try {
    return certificate.subject === certificate.issuer && certificate.verify(certificate.publicKey);
  } catch {
    return false;
  }
}

/**
 * Whether `sent` (the server's certificate first, then the chain it sent) reaches a trust anchor;
 * dates are not looked at.
 */
export function judgeChainTrust(sent: readonly X509Certificate[], store: TrustStore): ChainTrust {
  for (const [index, certificate] of sent.entries()) {
    if (store.fingerprints.has(certificate.fingerprint256)) return 'anchored';
    const issuer = sent[index + 1];
    if (issuer && signedBy(certificate, issuer)) continue;
    const anchor = (store.bySubject.get(certificate.issuer) ?? []).find((candidate) =>
      signedBy(certificate, candidate),
    );
    if (anchor) return 'anchored';
    break;
  }
  const leaf = sent[0];
  return sent.length === 1 && leaf && selfSigned(leaf) ? 'self_signed' : 'unanchored';
}
