import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Answer } from 'dns-packet';

// The record encoders dns-packet exports beside encode/decode; its type declarations omit them.
const wire = createRequire(import.meta.url)('dns-packet') as {
  name: { encode(name: string): Buffer; encodingLength(name: string): number };
  answer: { encode(record: Answer): Buffer };
  dnskey: { encode(key: { flags: number; algorithm: number; key: Buffer }): Buffer };
  rrsig: { encode(fields: object): Buffer };
};

/** ECDSA P-256 with SHA-256 (RFC 6605). */
export const ALGORITHM = 13;
/** Zone key and secure entry point: one key signs everything (a CSK). */
const KEY_FLAGS = 257;
export const KEY_FILE = 'resolver-test-dnssec.pem';

export interface ZoneKey {
  readonly privateKey: KeyObject;
  /** The DNSKEY's public key field: the point's x and y, 64 bytes. */
  readonly publicKey: Buffer;
  readonly keyTag: number;
}

/**
 * The zone's key from DATA_DIR, made on first start: the DS the operator published at the parent
 * names this key, so a new key on every start would make the zone bogus everywhere.
 */
export function loadOrCreateZoneKey(dataDir: string): ZoneKey {
  const file = path.join(dataDir, KEY_FILE);
  try {
    writeFileSync(file, generatePem(), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // EEXIST: made by an earlier start (or by another worker a moment ago).
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return zoneKeyOf(createPrivateKey(readFileSync(file, 'utf8')));
}

function generatePem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export function zoneKeyOf(privateKey: KeyObject): ZoneKey {
  const jwk = privateKey.export({ format: 'jwk' });
  const publicKey = Buffer.concat([Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]);
  return { privateKey, publicKey, keyTag: keyTagOf(dnskeyRdata(publicKey)) };
}

export function dnskeyRecord(zone: string, key: ZoneKey, ttl: number): Answer {
  return {
    name: zone,
    type: 'DNSKEY',
    class: 'IN',
    ttl,
    data: { flags: KEY_FLAGS, algorithm: ALGORITHM, key: key.publicKey },
  } as Answer;
}

function dnskeyRdata(publicKey: Buffer): Buffer {
  return wire.dnskey.encode({ flags: KEY_FLAGS, algorithm: ALGORITHM, key: publicKey }).subarray(2);
}

/** RFC 4034 appendix B. */
function keyTagOf(rdata: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i % 2 === 0 ? (rdata[i] as number) << 8 : (rdata[i] as number);
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** The DS record (SHA-256) the operator publishes in the parent zone, in presentation form. */
export function dsText(zone: string, key: ZoneKey): string {
  const digest = createHash('sha256')
    .update(wire.name.encode(zone.toLowerCase()))
    .update(dnskeyRdata(key.publicKey))
    .digest('hex')
    .toUpperCase();
  return `${zone}. IN DS ${key.keyTag} ${ALGORITHM} 2 ${digest}`;
}

/** How long before and after now a signature is valid: clocks of validators drift. */
const INCEPTION_SKEW_S = 3600;
const VALIDITY_S = 7 * 86400;

/**
 * The RRSIG over one RRset (same owner, type and TTL), made at answer time (RFC 4034 §3.1.8.1:
 * the signed data is the RRSIG's fields, then each record in canonical form, sorted by RDATA).
 * `broken` flips a bit of the signature: the name a validating resolver must refuse.
 */
export function signRrset(
  rrset: readonly Answer[],
  zone: string,
  key: ZoneKey,
  nowSeconds: number,
  broken = false,
): Answer {
  const first = rrset[0] as Answer & { ttl: number };
  const owner = first.name.toLowerCase();
  const fields = {
    typeCovered: first.type,
    algorithm: ALGORITHM,
    labels: owner.split('.').filter((label) => label !== '').length,
    originalTTL: first.ttl,
    expiration: (nowSeconds + VALIDITY_S) >>> 0,
    inception: (nowSeconds - INCEPTION_SKEW_S) >>> 0,
    keyTag: key.keyTag,
    signersName: zone,
  };
  const canonical = rrset
    .map((record) => wire.answer.encode({ ...record, name: owner, ttl: first.ttl } as Answer))
    .sort((a, b) => Buffer.compare(rdataOf(a, owner), rdataOf(b, owner)));
  const head = wire.rrsig.encode({ ...fields, signature: Buffer.alloc(0) }).subarray(2);
  const signature = sign('sha256', Buffer.concat([head, ...canonical]), {
    key: key.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  if (broken) signature[0] = (signature[0] as number) ^ 0x01;
  return { name: first.name, type: 'RRSIG', class: 'IN', ttl: first.ttl, data: { ...fields, signature } } as Answer;
}

/** A record's RDATA: after its owner, type, class, TTL and length. */
function rdataOf(record: Buffer, owner: string): Buffer {
  return record.subarray(wire.name.encodingLength(owner) + 10);
}
