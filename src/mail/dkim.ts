import { createPublicKey, type KeyObject } from 'node:crypto';
import { parseTagList } from './tag-list.ts';

export type DkimKey = {
  /** The k= tag, lower case (`rsa` when absent, RFC 6376 §3.6.1). */
  keyType: string;
  /** Bits of the public key (RSA modulus length; 256 for Ed25519), null when none could be read. */
  bits: number | null;
  /** True when p= is empty: the key was revoked (RFC 6376 §3.6.1). */
  revoked: boolean;
  /** True when t= has the y flag: the domain is testing DKIM (RFC 6376 §3.6.1). */
  testing: boolean;
  problems: string[];
};

// RFC 8032 keys in DNS are the 32 raw bytes (RFC 8463 §4); Node reads them inside this SPKI prefix.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Parses one DKIM key record and reads its key. Pure (node:crypto only decodes). */
export function parseDkimRecord(text: string): DkimKey {
  const list = parseTagList(text);
  const problems = list.errors.map((error) => `syntax error: ${error}`);
  const version = list.tags.get('v');
  if (version !== undefined && (version !== 'DKIM1' || list.order[0] !== 'v')) {
    problems.push('syntax error: v= must be DKIM1 and the first tag when present');
  }
  const keyType = (list.tags.get('k') ?? 'rsa').toLowerCase();
  const testing = (list.tags.get('t') ?? '').split(':').some((flag) => flag.trim().toLowerCase() === 'y');
  const p = list.tags.get('p');
  if (p === undefined) {
    problems.push('syntax error: the required tag p= (the public key) is missing');
    return { keyType, bits: null, revoked: false, testing, problems };
  }
  const base64 = p.replace(/\s+/g, '');
  if (base64 === '') {
    problems.push('the key is revoked (empty p=): signatures with this selector fail');
    return { keyType, bits: null, revoked: true, testing, problems };
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) {
    problems.push('syntax error: p= is not base64');
    return { keyType, bits: null, revoked: false, testing, problems };
  }
  const bits = keyBits(keyType, Buffer.from(base64, 'base64'));
  if (bits === null) {
    problems.push(
      keyType === 'rsa' || keyType === 'ed25519'
        ? `p= does not hold a readable ${keyType} public key`
        : `unknown key type k=${keyType} (RFC 6376 and 8463 define rsa and ed25519)`,
    );
  } else if (keyType === 'rsa' && bits < 1024) {
    problems.push(`the RSA key has ${bits} bits: too weak, verifiers must not accept keys under 1024 bits (RFC 8301)`);
  } else if (keyType === 'rsa' && bits < 2048) {
    problems.push(`the RSA key has ${bits} bits: RFC 8301 recommends at least 2048`);
  }
  if (testing) problems.push('t=y: the domain says it is testing DKIM, and receivers may treat failures as unsigned');
  return { keyType, bits, revoked: false, testing, problems };
}

function keyBits(keyType: string, der: Buffer): number | null {
  if (keyType === 'rsa') {
    // Keys are published as SubjectPublicKeyInfo (what `openssl rsa -pubout` writes); RFC 6376's
    // text names the bare PKCS#1 RSAPublicKey, which some signers publish, so both are read.
    const key = readKey(der, 'spki') ?? readKey(der, 'pkcs1');
    return key?.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? null) : null;
  }
  if (keyType === 'ed25519') {
    if (der.length !== 32) return null;
    const key = readKey(Buffer.concat([ED25519_SPKI_PREFIX, der]), 'spki');
    return key?.asymmetricKeyType === 'ed25519' ? 256 : null;
  }
  return null;
}

function readKey(der: Buffer, type: 'spki' | 'pkcs1'): KeyObject | null {
  try {
    return createPublicKey({ key: der, format: 'der', type });
  } catch {
    return null;
  }
}
