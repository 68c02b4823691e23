import type { AccountRepository } from '../storage/repository.ts';
import { decryptApiKey } from './key-crypto.ts';
import type { Keyring } from './keyring.ts';

/**
 * Why MASTER_KEY cannot verify the API keys stored already, or undefined when it can (or none are
 * stored). One key of each version in use is decrypted: a wrong key (a fresh one, or `v2:<new>`
 * alone while keys are still under version 1) otherwise shows only as every existing key being
 * refused with 401 while the service says it is ready.
 */
export async function masterKeyMismatch(repository: AccountRepository, keyring: Keyring): Promise<string | undefined> {
  for (const key of await repository.oneKeyPerVersion()) {
    const version = key.secret.keyVersion;
    const material = keyring.byVersion(version);
    if (material === undefined) {
      return `stored API keys are under master key version ${version}, which MASTER_KEY does not hold: they are all refused (keep v${version} in MASTER_KEY until npm run admin -- rotate-keys has run)`;
    }
    try {
      decryptApiKey(material, key.id, key.secret);
    } catch {
      return `MASTER_KEY version ${version} does not decrypt the stored API keys: they are all refused (is this the master key they were made with?)`;
    }
  }
  return undefined;
}

/**
 * Checks MASTER_KEY against the stored keys as soon as the database answers (it may be down at
 * startup): at once, then every minute until a check has run. `problem()` is what /readyz shows.
 */
export function watchMasterKey(
  repository: AccountRepository,
  keyring: Keyring,
  log: { error(object: object, message: string): void },
): { problem(): string | undefined; stop(): void } {
  let problem: string | undefined;
  const timer = setInterval(() => void check(), 60_000);
  timer.unref();
  async function check() {
    try {
      problem = await masterKeyMismatch(repository, keyring);
      clearInterval(timer);
      if (problem) log.error({ masterKey: problem }, 'MASTER_KEY does not match the stored API keys');
    } catch {
      // The database is not reachable yet: the next try will tell.
    }
  }
  void check();
  return { problem: () => problem, stop: () => clearInterval(timer) };
}
