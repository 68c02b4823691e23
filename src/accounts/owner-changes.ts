import type { AccountRepository } from '../storage/repository.ts';

/**
 * A version shared by every instance, replaced whenever who may use a key changes (a key
 * revoked, a plan changed, an account disabled). Each instance compares it before trusting its
 * cache of verified keys, so a key revoked through one instance is refused by every other on the
 * very next request: the change completes before the revocation's response is sent.
 */
export interface OwnerChanges {
  /** The current version, or null when it cannot be read (then nothing cached may be trusted). */
  version(): Promise<string | null>;
  announce(): Promise<void>;
}

/** The repository, announcing every change of key ownership after it is stored. */
export function announcingOwnerChanges(repository: AccountRepository, changes: OwnerChanges): AccountRepository {
  return {
    ...repository,
    async setPlan(accountId, plan) {
      await repository.setPlan(accountId, plan);
      await changes.announce();
    },
    async setDisabled(accountId, disabledAt) {
      await repository.setDisabled(accountId, disabledAt);
      await changes.announce();
    },
    async revokeKey(accountId, keyId, revokedAt) {
      const revoked = await repository.revokeKey(accountId, keyId, revokedAt);
      if (revoked) await changes.announce();
      return revoked;
    },
    changedElsewhere: () => repository.changedElsewhere(),
    unavailable: () => repository.unavailable(),
    close: () => repository.close(),
  };
}
