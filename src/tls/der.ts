/**
 * Just enough DER to walk a certificate to one extension: tag, length and where the contents are.
 * Node's X509Certificate reads every field /ssl reports except the embedded SCT list, which it
 * does not expose; a few dozen lines here instead of a general ASN.1 package for one extension.
 */
export interface DerNode {
  tag: number;
  /** Offset of the first content byte in the buffer. */
  start: number;
  /** Offset just past the last content byte. */
  end: number;
}

/** The element at `offset`; throws on what DER does not allow (indefinite or overlong lengths, overruns). */
export function readDer(buffer: Uint8Array, offset: number): DerNode {
  const tag = buffer[offset];
  if (tag === undefined) throw new Error('DER: element past the end');
  // Multi-byte tag numbers (low five bits all set) do not occur in the X.509 structures read here.
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tag');
  const first = buffer[offset + 1];
  if (first === undefined) throw new Error('DER: length past the end');
  let length = first;
  let start = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: indefinite or overlong length');
    length = 0;
    for (let index = 0; index < count; index++) {
      const byte = buffer[start + index];
      if (byte === undefined) throw new Error('DER: length past the end');
      length = length * 256 + byte;
    }
    start += count;
  }
  const end = start + length;
  if (end > buffer.length) throw new Error('DER: contents past the end');
  return { tag, start, end };
}

/** The elements inside a constructed element, in order. */
export function derChildren(buffer: Uint8Array, parent: DerNode): DerNode[] {
  const children: DerNode[] = [];
  let offset = parent.start;
  while (offset < parent.end) {
    const child = readDer(buffer, offset);
    if (child.end > parent.end) throw new Error('DER: element overruns its parent');
    children.push(child);
    offset = child.end;
  }
  return children;
}

const EXTENSIONS_TAG = 0xa3; // [3] EXPLICIT in TBSCertificate
const OID_TAG = 0x06;
const OCTET_STRING_TAG = 0x04;

/**
 * The contents of the extnValue OCTET STRING of the extension `oid` (its DER content bytes, e.g.
 * `2b06010401d679020402` for 1.3.6.1.4.1.11129.2.4.2), or null when the certificate has none.
 */
export function findExtensionValue(certificate: Uint8Array, oid: Uint8Array): Uint8Array | null {
  const root = readDer(certificate, 0);
  const [tbs] = derChildren(certificate, root);
  if (!tbs) throw new Error('DER: certificate without tbsCertificate');
  const extensions = derChildren(certificate, tbs).find((node) => node.tag === EXTENSIONS_TAG);
  if (!extensions) return null;
  const [list] = derChildren(certificate, extensions);
  if (!list) return null;
  for (const extension of derChildren(certificate, list)) {
    const parts = derChildren(certificate, extension);
    const id = parts[0];
    const value = parts.at(-1);
    if (!id || id.tag !== OID_TAG || !value || value.tag !== OCTET_STRING_TAG) continue;
    const bytes = certificate.subarray(id.start, id.end);
    if (bytes.length === oid.length && bytes.every((byte, index) => byte === oid[index])) {
      return certificate.subarray(value.start, value.end);
    }
  }
  return null;
}
