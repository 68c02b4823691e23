import type { AccountRepository, EncryptedSecret } from '../storage/repository.ts';
import { decryptApiKey, encryptApiKey, lookupHash } from './key-crypto.ts';
import type { Keyring } from './keyring.ts';

export interface RotationReport {
  readonly rotated: number;
  /** Secrets left as they were, with why (their version is not in MASTER_KEY, or the tag failed). */
  readonly failed: readonly { readonly id: string; readonly reason: string }[];
}

/**
 * Re-encrypts each secret under the keyring's current master key. Each is decrypted with the
 * version it was stored under, so this needs that version still listed in MASTER_KEY; afterwards
 * the old version can be removed. Safe to run again, and beside a running service: until a secret
 * is rewritten it decrypts under its old version, and after under the new one. `replace` writes
 * only if the secret is still under the version read, so two rotations cannot overwrite each other.
 */
async function rotate(
  keyring: Keyring,
  stored: readonly { id: string; secret: EncryptedSecret }[],
  aad: (id: string) => string,
  replace: (id: string, fromVersion: number, plaintext: string, secret: EncryptedSecret) => Promise<boolean>,
): Promise<RotationReport> {
  const { current } = keyring;
  let rotated = 0;
  const failed: { id: string; reason: string }[] = [];
  for (const { id, secret } of stored) {
    const material = keyring.byVersion(secret.keyVersion);
    if (!material) {
      failed.push({ id, reason: `master key version ${secret.keyVersion} is not in MASTER_KEY` });
      continue;
    }
    let plaintext: string;
    try {
      plaintext = decryptApiKey(material, aad(id), secret);
    } catch (error) {
      failed.push({ id, reason: `cannot decrypt: ${(error as Error).message}` });
      continue;
    }
    if (await replace(id, secret.keyVersion, plaintext, encryptApiKey(current, aad(id), plaintext))) rotated++;
  }
  return { rotated, failed };
}

/** Every stored API key, re-encrypted and re-hashed (its lookup hash is keyed by the master key too). */
export async function rotateApiKeys(repository: AccountRepository, keyring: Keyring): Promise<RotationReport> {
  return rotate(
    keyring,
    await repository.listKeysNotAtVersion(keyring.current.version),
    (id) => id,
    (id, fromVersion, plaintext, secret) =>
      repository.replaceKeySecret(id, fromVersion, lookupHash(keyring.current, plaintext), secret),
  );
}

/** What rotation needs of the monitors' repository (accounts do not import the monitors' code). */
export interface WebhookSecretStore {
  listSecretsNotAtVersion(version: number): Promise<{ id: string; secret: EncryptedSecret }[]>;
  replaceSecret(id: string, fromVersion: number, secret: EncryptedSecret): Promise<boolean>;
  /** The additional data each secret was encrypted with (`webhookSecretAad`). */
  readonly aad: (monitorId: string) => string;
}

/**
 * Every monitor's webhook signing secret: without this, removing the old version from MASTER_KEY
 * would leave those monitors unable to sign their webhooks.
 */
export async function rotateWebhookSecrets(monitors: WebhookSecretStore, keyring: Keyring): Promise<RotationReport> {
  const { aad } = monitors;
  return rotate(keyring, await monitors.listSecretsNotAtVersion(keyring.current.version), aad, (id, from, _, secret) =>
    monitors.replaceSecret(id, from, secret),
  );
}
