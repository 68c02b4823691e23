import { findExtensionValue, readDer } from './der.ts';

/** 1.3.6.1.4.1.11129.2.4.2, the embedded SCT list (RFC 6962 section 3.3), in DER content bytes. */
const SCT_LIST_OID = Uint8Array.from([0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02]);

/**
 * How many Signed Certificate Timestamps the certificate carries in its SCT list extension: 0 when
 * it has none, null when the extension is there but cannot be read. The extension's value is an
 * OCTET STRING holding the TLS-encoded SignedCertificateTimestampList: a 2-byte length, then each
 * SCT as a 2-byte length and its bytes. The SCTs' signatures are not checked (that needs the logs' keys).
 */
export function countEmbeddedScts(certificateDer: Uint8Array): number | null {
  let value: Uint8Array | null;
  try {
    value = findExtensionValue(certificateDer, SCT_LIST_OID);
  } catch {
    return null;
  }
  if (value === null) return 0;
  try {
    const inner = readDer(value, 0);
    if (inner.tag !== 0x04 || inner.end !== value.length) return null;
    return countTlsList(value.subarray(inner.start, inner.end));
  } catch {
    return null;
  }
}

/** The entries of a SignedCertificateTimestampList; null when a length does not add up. */
export function countTlsList(list: Uint8Array): number | null {
  if (list.length < 2) return null;
  const total = ((list[0] as number) << 8) | (list[1] as number);
  if (total !== list.length - 2) return null;
  let count = 0;
  let offset = 2;
  while (offset < list.length) {
    if (offset + 2 > list.length) return null;
    const length = ((list[offset] as number) << 8) | (list[offset + 1] as number);
    // An SCT is at least version, log id, timestamp, extensions length, algorithms and signature length.
    if (length < 47 || offset + 2 + length > list.length) return null;
    offset += 2 + length;
    count += 1;
  }
  return count;
}
