// Every method is async so a networked database fits; every write that resolves is durable. Both
// implementations pass test/storage/repository-contract.ts.

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

/** Times are UNIX milliseconds throughout. */
export interface AccountRecord {
  readonly id: string;
  /** Normalised (see accounts/email.ts); unique. */
  readonly email: string;
  /** PHC string of the argon2id hash. */
  readonly passwordHash: string;
  readonly plan: Plan;
  readonly createdAt: number;
  /** Set while disabled by an administrator: no login, its keys are refused. */
  readonly disabledAt: number | null;
}

export interface SessionRecord {
  /** SHA-256 of the session id: the database alone does not yield a usable cookie. */
  readonly idHash: string;
  readonly accountId: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** The earlier of "idle for too long" and "too old"; refreshed when the session is used. */
  readonly expiresAt: number;
}

/** An API key at rest: never the key itself, only what finds it and what encrypts it. */
export interface EncryptedSecret {
  /** Which master key encrypted it (and keyed its lookup hash), for rotation. */
  readonly keyVersion: number;
  /** Base64 of the 96-bit AES-GCM nonce, the ciphertext and the 128-bit tag. */
  readonly nonce: string;
  readonly ciphertext: string;
  readonly tag: string;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly displayPrefix: string;
  /** Hex HMAC-SHA256 of the key: the only way a presented key is found. Unique. */
  readonly lookupHash: string;
  readonly secret: EncryptedSecret;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface KeyOwner {
  readonly keyId: string;
  readonly accountId: string;
  readonly plan: Plan;
  /** The key is refused, with a 401 that says so. */
  readonly disabled: boolean;
}

export interface AccountSummary {
  readonly id: string;
  readonly email: string;
  readonly plan: Plan;
  readonly createdAt: number;
  readonly disabledAt: number | null;
  readonly activeKeys: number;
  /** The latest use of any of its keys (as last flushed). */
  readonly lastUsedAt: number | null;
}

export interface AccountRepository {
  /** Inserts the account unless its email is taken (checked by the database, so races are safe). */
  createAccount(account: AccountRecord): Promise<'created' | 'duplicate-email'>;
  findAccountByEmail(email: string): Promise<AccountRecord | undefined>;
  findAccountById(id: string): Promise<AccountRecord | undefined>;
  updatePasswordHash(accountId: string, passwordHash: string): Promise<void>;
  setPlan(accountId: string, plan: Plan): Promise<void>;
  /** `null` enables the account again. */
  setDisabled(accountId: string, disabledAt: number | null): Promise<void>;
  listAccounts(): Promise<AccountSummary[]>;

  createSession(session: SessionRecord): Promise<void>;
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  deleteSessionsOfAccount(accountId: string): Promise<void>;
  deleteExpiredSessions(now: number): Promise<number>;

  /**
   * Inserts the key only if the account has fewer than `quota` active keys, atomically: concurrent
   * creations at the quota's edge let exactly the quota through.
   */
  createKeyWithinQuota(key: ApiKeyRecord, quota: number): Promise<'created' | 'quota-reached'>;
  countActiveKeys(accountId: string): Promise<number>;
  /** Oldest first. */
  listActiveKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /** Of an active (not revoked) key, disabled accounts included. */
  findKeyOwner(lookupHash: string): Promise<KeyOwner | undefined>;
  /** False when the key was not this account's or was already revoked. */
  revokeKey(accountId: string, keyId: string, revokedAt: number): Promise<boolean>;
  /** Keys (revoked ones too) whose secret is under another master key version than `version`. */
  listKeysNotAtVersion(version: number): Promise<ApiKeyRecord[]>;
  /** One stored key (revoked ones too) of each master key version in use, to test MASTER_KEY against. */
  oneKeyPerVersion(): Promise<ApiKeyRecord[]>;
  /** Only if still under `fromVersion`, so two rotations running at once cannot overwrite each other. */
  replaceKeySecret(keyId: string, fromVersion: number, lookupHash: string, secret: EncryptedSecret): Promise<boolean>;
  /** Batched last-used times; a time earlier than the stored one is ignored. */
  recordKeyUse(uses: readonly { readonly keyId: string; readonly usedAt: number }[]): Promise<void>;

  /**
   * True when another process (the admin command, another worker) may have written since the last
   * call, so caches of key owners must be dropped. Cheap enough for every keyed request. A
   * repository whose changes are announced another way (pub/sub beside PostgreSQL) returns false.
   */
  changedElsewhere(): boolean;
  /** Why the database cannot be used now (for /readyz); calls meanwhile fail with StorageUnavailableError. */
  unavailable(): string | undefined;
  close(): Promise<void>;
}
