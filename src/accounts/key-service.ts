import { hash, randomBytes } from 'node:crypto';
import { KEY_QUOTA } from '../limits/tiers.ts';
import type { AccountRecord, AccountRepository, ApiKeyRecord, KeyOwner } from '../storage/repository.ts';
import { displayPrefix, generateApiKey } from './api-key-format.ts';
import type { KeyCache } from './key-cache.ts';
import { encryptApiKey, lookupHash } from './key-crypto.ts';
import type { KeyUsageRecorder } from './key-usage.ts';
import type { Keyring } from './keyring.ts';
import type { OwnerChanges } from './owner-changes.ts';

export function newId(): string {
  return randomBytes(12).toString('base64url');
}
export const ID_PATTERN = '^[A-Za-z0-9_-]{16}$';

export type KeyCreation =
  | { readonly ok: true; readonly record: ApiKeyRecord; readonly key: string }
  | { readonly ok: false; readonly quota: number };

export interface KeyService {
  /** A new key for the account (the only moment its plaintext exists outside the caller's hands). */
  create(account: AccountRecord, name: string): Promise<KeyCreation>;
  /** Active keys, oldest first, with last-used times including uses not yet written. */
  list(accountId: string): Promise<ApiKeyRecord[]>;
  revoke(accountId: string, keyId: string): Promise<boolean>;
  /** Undefined for an unknown or revoked key; `disabled` when its account is. */
  verify(apiKey: string): Promise<KeyOwner | undefined>;
  /** Drops cached owners of the account's keys (its plan changed or it was disabled). */
  forgetAccount(accountId: string): void;
}

export function createKeyService(options: {
  repository: AccountRepository;
  keyring: Keyring;
  cache: KeyCache;
  usage: KeyUsageRecorder;
  now: () => number;
  /**
   * How stale this process may be about changes made by another process (default 1 ms; 0 asks on
   * every keyed request). Changes made through this process invalidate at once, always.
   */
  elsewhereCheckMs?: number;
  /** With several instances (REDIS_URL): the shared version checked before every cache hit. */
  ownerChanges?: OwnerChanges;
}): KeyService {
  const { repository, keyring, cache, usage, now, ownerChanges } = options;
  const elsewhereCheckMs = options.elsewhereCheckMs ?? 1;
  let nextElsewhereCheck = 0;
  let seenOwnerVersion: string | null = null;
  return {
    async create(account, name) {
      const key = generateApiKey();
      const id = newId();
      const record: ApiKeyRecord = {
        id,
        accountId: account.id,
        name,
        displayPrefix: displayPrefix(key),
        lookupHash: lookupHash(keyring.current, key),
        secret: encryptApiKey(keyring.current, id, key),
        createdAt: now(),
        lastUsedAt: null,
        revokedAt: null,
      };
      const quota = KEY_QUOTA[account.plan];
      const outcome = await repository.createKeyWithinQuota(record, quota);
      return outcome === 'created' ? { ok: true, record, key } : { ok: false, quota };
    },

    async list(accountId) {
      const keys = await repository.listActiveKeys(accountId);
      return keys.map((key) => {
        const pending = usage.pending(key.id);
        return pending !== undefined && pending > (key.lastUsedAt ?? 0) ? { ...key, lastUsedAt: pending } : key;
      });
    },

    async revoke(accountId, keyId) {
      const revoked = await repository.revokeKey(accountId, keyId, now());
      if (revoked) cache.invalidateKey(keyId);
      return revoked;
    },

    async verify(apiKey) {
      // Another process (the admin command, another worker) may have revoked a key or changed a
      // plan: then nothing cached can be trusted. Asking SQLite costs 3-17 µs under load (it starts
      // a read transaction), so it is asked at most once per `elsewhereCheckMs`.
      const time = performance.now();
      if (time >= nextElsewhereCheck) {
        nextElsewhereCheck = time + elsewhereCheckMs;
        if (repository.changedElsewhere()) cache.clear();
      }
      if (ownerChanges) {
        const version = await ownerChanges.version();
        if (version === null || version !== seenOwnerVersion) cache.clear();
        seenOwnerVersion = version;
      }
      // The cache is keyed by a plain SHA-256 (0.4 µs; irreversible for 178 random bits), so a hit
      // needs no HMAC; the HMAC (the database's lookup hash) is computed only on a miss.
      const cacheKey = hash('sha256', apiKey, 'base64');
      const cached = cache.get(cacheKey);
      if (cached) {
        usage.touch(cached.keyId);
        return cached;
      }
      const generation = cache.generation();
      // Keys not yet re-encrypted after a master key rotation are found by an older version's
      // hash: one more HMAC and query per older version, on cache misses only.
      let owner: KeyOwner | undefined;
      for (const material of keyring.all) {
        owner = await repository.findKeyOwner(lookupHash(material, apiKey));
        if (owner) break;
      }
      if (!owner) return undefined;
      // A disabled account's key is not cached: enabling the account again then takes effect at once.
      if (owner.disabled) return owner;
      cache.set(cacheKey, owner, generation);
      usage.touch(owner.keyId);
      return owner;
    },

    forgetAccount: (accountId) => cache.invalidateAccount(accountId),
  };
}
