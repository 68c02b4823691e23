import { randomBytes } from 'node:crypto';

/** One SCT v1 (RFC 6962 section 3.2) with a random log id and a dummy ECDSA-sized signature. */
function sct(): Buffer {
  const signature = randomBytes(71);
  const body = Buffer.concat([
    Buffer.from([0]), // version v1
    randomBytes(32), // log id
    Buffer.from('0000019000000000', 'hex'), // timestamp
    Buffer.from([0, 0]), // no extensions
    Buffer.from([4, 3]), // sha256, ecdsa
    Buffer.from([0, signature.length]),
    signature,
  ]);
  return Buffer.concat([Buffer.from([body.length >> 8, body.length & 0xff]), body]);
}

/** The TLS-encoded SignedCertificateTimestampList of `count` SCTs. */
export function sctList(count: number): Buffer {
  const entries = Buffer.concat(Array.from({ length: count }, sct));
  return Buffer.concat([Buffer.from([entries.length >> 8, entries.length & 0xff]), entries]);
}

/** The openssl extension-file line that embeds a list (the extension value wraps it in an OCTET STRING). */
export function sctExtensionLine(list: Buffer): string {
  return `1.3.6.1.4.1.11129.2.4.2 = ASN1:FORMAT:HEX,OCTETSTRING:${list.toString('hex')}`;
}
