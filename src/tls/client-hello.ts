/**
 * A ClientHello that offers one TLS version alone, and a reader of the server's first answer: the
 * version probe of `protocols=true`. Reading the ServerHello settles the question without a key
 * exchange, certificate check or OpenSSL context, so a probe costs the service a few microseconds;
 * and it can offer TLSv1 and TLSv1.1, which Node's OpenSSL refuses to offer at its default
 * security level. Pure: the random bytes are passed in.
 */
export const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

export const VERSION_CODES: Readonly<Record<TlsVersion, number>> = {
  TLSv1: 0x0301,
  'TLSv1.1': 0x0302,
  'TLSv1.2': 0x0303,
  'TLSv1.3': 0x0304,
};

/**
 * Up to TLSv1.2: RSA, ECDHE and DHE key exchange with AES-GCM, ChaCha20, AES-CBC, 3DES and RC4, so
 * that a server that speaks the version finds a suite it takes, and the renegotiation SCSV (RFC
 * 5746). RSA key exchange comes first: a server that honours the client's order and still allows it
 * answers without signing anything (the probe closes after the ServerHello), where an ECDHE answer
 * costs the server a signature; which suite is chosen does not change what the answer says about
 * the version.
 */
const LEGACY_SUITES = [
  0x009c, 0x009d, 0x003c, 0x003d, 0x002f, 0x0035, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0x009e, 0x009f,
  0xc023, 0xc027, 0xc024, 0xc028, 0xc009, 0xc013, 0xc00a, 0xc014, 0x0033, 0x0039, 0xc012, 0x0016, 0x000a, 0x0005,
  0x0004, 0x00ff,
];
const TLS13_SUITES = [0x1301, 0x1302, 0x1303];
/** x25519, secp256r1, secp384r1, secp521r1, x448, ffdhe2048, ffdhe3072. */
const GROUPS = [0x001d, 0x0017, 0x0018, 0x0019, 0x001e, 0x0100, 0x0101];
/** ECDSA, RSA-PSS and RSA PKCS#1 with SHA-256/384/512, Ed25519, then the SHA-1 ones. */
const SIGNATURE_ALGORITHMS = [
  0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0603, 0x0806, 0x0601, 0x0807, 0x0203, 0x0201,
];

const u8 = (value: number) => [value & 0xff];
const u16 = (value: number) => [(value >> 8) & 0xff, value & 0xff];
const u24 = (value: number) => [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
const vector16 = (bytes: number[]) => [...u16(bytes.length), ...bytes];
const extension = (type: number, body: number[]) => [...u16(type), ...vector16(body)];

/**
 * The record holding a ClientHello for exactly `version`. TLSv1.3 is offered through
 * supported_versions with an empty key share (RFC 8446 section 4.2.8 allows it): a server that
 * speaks it answers with a HelloRetryRequest, which names the version before any signing.
 * `random` is 32 bytes; `sessionId` 32 bytes, sent only with TLSv1.3 (middlebox compatibility).
 */
export function buildClientHello(
  version: TlsVersion,
  serverName: string | null,
  random: Uint8Array,
  sessionId: Uint8Array,
): Buffer {
  const modern = version === 'TLSv1.3';
  const extensions = [
    ...(serverName === null
      ? []
      : extension(0x0000, vector16([0, ...vector16([...Buffer.from(serverName, 'ascii')])]))),
    ...extension(0x000a, vector16(GROUPS.flatMap(u16))),
    ...extension(0x000b, [1, 0]),
    ...(version === 'TLSv1.2' || modern ? extension(0x000d, vector16(SIGNATURE_ALGORITHMS.flatMap(u16))) : []),
    ...(modern ? [...extension(0x002b, [2, ...u16(VERSION_CODES['TLSv1.3'])]), ...extension(0x0033, u16(0))] : []),
  ];
  const body = [
    ...u16(modern ? VERSION_CODES['TLSv1.2'] : VERSION_CODES[version]),
    ...random,
    ...(modern ? [sessionId.length, ...sessionId] : [0]),
    ...vector16((modern ? TLS13_SUITES : LEGACY_SUITES).flatMap(u16)),
    1,
    0, // compression: null only
    ...vector16(extensions),
  ];
  const handshake = [...u8(1), ...u24(body.length), ...body];
  return Buffer.from([0x16, ...u16(VERSION_CODES.TLSv1), ...vector16(handshake)]);
}

export type ServerAnswer =
  | { kind: 'incomplete' }
  /** The version the ServerHello (or HelloRetryRequest) chose. */
  | { kind: 'hello'; version: number }
  | { kind: 'alert'; description: number }
  | { kind: 'garbage'; reason: string };

const MAX_RECORD = 16_384 + 2048;
const MAX_SERVER_HELLO = 4096;

/**
 * The server's first answer from the bytes received so far: an alert, the version its ServerHello
 * chose (supported_versions when present, else the legacy version field), or garbage.
 */
export function readServerAnswer(bytes: Uint8Array): ServerAnswer {
  const handshake: number[] = [];
  let offset = 0;
  while (offset + 5 <= bytes.length) {
    const type = bytes[offset] as number;
    const length = ((bytes[offset + 3] as number) << 8) | (bytes[offset + 4] as number);
    if ((type !== 0x15 && type !== 0x16) || bytes[offset + 1] !== 0x03 || length > MAX_RECORD) {
      return { kind: 'garbage', reason: 'not a TLS record' };
    }
    if (offset + 5 + length > bytes.length) return { kind: 'incomplete' };
    const fragment = bytes.subarray(offset + 5, offset + 5 + length);
    offset += 5 + length;
    if (type === 0x15) {
      if (fragment.length < 2) return { kind: 'garbage', reason: 'a short alert' };
      return { kind: 'alert', description: fragment[1] as number };
    }
    handshake.push(...fragment);
    if (handshake.length >= 4) {
      if (handshake[0] !== 2) return { kind: 'garbage', reason: 'the first handshake message is not a ServerHello' };
      const messageLength =
        ((handshake[1] as number) << 16) | ((handshake[2] as number) << 8) | (handshake[3] as number);
      // A ServerHello is a few hundred bytes; a server announcing more is not answering a ClientHello.
      if (messageLength > MAX_SERVER_HELLO) return { kind: 'garbage', reason: 'a ServerHello too long' };
      if (handshake.length >= 4 + messageLength) {
        return readServerHello(Uint8Array.from(handshake.slice(4, 4 + messageLength)));
      }
    }
  }
  if (bytes.length > 0 && bytes[0] !== 0x15 && bytes[0] !== 0x16)
    return { kind: 'garbage', reason: 'not a TLS record' };
  return { kind: 'incomplete' };
}

function readServerHello(hello: Uint8Array): ServerAnswer {
  const malformed: ServerAnswer = { kind: 'garbage', reason: 'a malformed ServerHello' };
  const at = (index: number) => hello[index] as number;
  if (hello.length < 38) return malformed;
  const legacy = (at(0) << 8) | at(1);
  let offset = 34; // version, random
  offset += 1 + at(offset); // session id
  offset += 3; // cipher suite, compression method
  if (offset > hello.length) return malformed;
  if (offset === hello.length) return { kind: 'hello', version: legacy };
  if (offset + 2 > hello.length) return malformed;
  const end = offset + 2 + ((at(offset) << 8) | at(offset + 1));
  if (end > hello.length) return malformed;
  offset += 2;
  while (offset + 4 <= end) {
    const type = (at(offset) << 8) | at(offset + 1);
    const length = (at(offset + 2) << 8) | at(offset + 3);
    if (type === 0x002b && length === 2 && offset + 6 <= end) {
      return { kind: 'hello', version: (at(offset + 4) << 8) | at(offset + 5) };
    }
    offset += 4 + length;
  }
  return { kind: 'hello', version: legacy };
}
