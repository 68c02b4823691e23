import type { AccountRepository, EncryptedSecret } from '../storage/repository.ts';
import { decryptApiKey } from './key-crypto.ts';
import type { Keyring } from './keyring.ts';

/** What is encrypted under the master key, for the check: one stored secret of each version in use. */
export interface StoredSecrets {
  /** "API keys", "monitors' webhook secrets". */
  readonly what: string;
  /** What a secret that cannot be decrypted means for users. */
  readonly consequence: string;
  readonly aad: (id: string) => string;
  onePerVersion(): Promise<readonly { readonly id: string; readonly secret: EncryptedSecret }[]>;
}

/**
 * Why MASTER_KEY cannot decrypt the secrets stored already, or undefined when it can (or none are
 * stored). One secret of each version in use is decrypted: a wrong key (a fresh one, or `v2:<new>`
 * alone while secrets are still under version 1) otherwise shows only as every existing API key
 * refused with 401, or every webhook failing, while the service says it is ready.
 */
export async function masterKeyMismatch(stored: StoredSecrets, keyring: Keyring): Promise<string | undefined> {
  for (const { id, secret } of await stored.onePerVersion()) {
    const version = secret.keyVersion;
    const material = keyring.byVersion(version);
    if (material === undefined) {
      return `stored ${stored.what} are under master key version ${version}, which MASTER_KEY does not hold: ${stored.consequence} (keep v${version} in MASTER_KEY until npm run admin -- rotate-keys has run)`;
    }
    try {
      decryptApiKey(material, stored.aad(id), secret);
    } catch {
      return `MASTER_KEY version ${version} does not decrypt the stored ${stored.what}: ${stored.consequence} (is this the master key they were made with?)`;
    }
  }
  return undefined;
}

export function storedApiKeys(repository: AccountRepository): StoredSecrets {
  return {
    what: 'API keys',
    consequence: 'they are all refused',
    aad: (id) => id,
    onePerVersion: () => repository.oneKeyPerVersion(),
  };
}

/**
 * Checks MASTER_KEY against the stored secrets as soon as the database answers (it may be down at
 * startup): at once, then every minute until a check has run. `problem()` is what /readyz shows.
 */
export function watchMasterKey(
  stored: StoredSecrets,
  keyring: Keyring,
  log: { error(object: object, message: string): void },
): { problem(): string | undefined; stop(): void } {
  let problem: string | undefined;
  const timer = setInterval(() => void check(), 60_000);
  timer.unref();
  async function check() {
    try {
      problem = await masterKeyMismatch(stored, keyring);
      clearInterval(timer);
      if (problem) log.error({ masterKey: problem }, `MASTER_KEY does not match the stored ${stored.what}`);
    } catch {
      // The database is not reachable yet: the next try will tell.
    }
  }
  void check();
  return { problem: () => problem, stop: () => clearInterval(timer) };
}
