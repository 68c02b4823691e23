import type { AccountRepository } from '../storage/repository.ts';
import { decryptApiKey, encryptApiKey, lookupHash } from './key-crypto.ts';
import type { Keyring } from './keyring.ts';

export interface RotationReport {
  readonly rotated: number;
  /** Keys left as they were, with why (their version is not in MASTER_KEY, or the tag failed). */
  readonly failed: readonly { readonly keyId: string; readonly reason: string }[];
}

/**
 * Re-encrypts and re-hashes every stored API key under the keyring's current master key. Each key
 * is decrypted with the version it was stored under, so this needs that version still listed in
 * MASTER_KEY; afterwards the old version can be removed. Safe to run again, and beside a running
 * service: until a key is rewritten it verifies under its old version, and after under the new one.
 */
export async function rotateApiKeys(repository: AccountRepository, keyring: Keyring): Promise<RotationReport> {
  const { current } = keyring;
  let rotated = 0;
  const failed: { keyId: string; reason: string }[] = [];
  for (const key of await repository.listKeysNotAtVersion(current.version)) {
    const material = keyring.byVersion(key.secret.keyVersion);
    if (!material) {
      failed.push({ keyId: key.id, reason: `master key version ${key.secret.keyVersion} is not in MASTER_KEY` });
      continue;
    }
    let plaintext: string;
    try {
      plaintext = decryptApiKey(material, key.id, key.secret);
    } catch (error) {
      failed.push({ keyId: key.id, reason: `cannot decrypt: ${(error as Error).message}` });
      continue;
    }
    const secret = encryptApiKey(current, key.id, plaintext);
    if (await repository.replaceKeySecret(key.id, key.secret.keyVersion, lookupHash(current, plaintext), secret)) {
      rotated++;
    }
  }
  return { rotated, failed };
}
