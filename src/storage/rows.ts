import type { AccountRecord, AccountSummary, ApiKeyRecord, KeyOwner, Plan, SessionRecord } from './repository.ts';

/** BIGINT times come back as numbers (SQLite) or strings (pg), so every time goes through Number(). */
export type Row = Record<string, unknown>;

export const timeOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

export function toAccount(row: Row): AccountRecord {
  return {
    id: String(row.id),
    email: String(row.email),
    passwordHash: String(row.password_hash),
    plan: String(row.plan) as Plan,
    createdAt: Number(row.created_at),
    disabledAt: timeOrNull(row.disabled_at),
  };
}

export function toSession(row: Row): SessionRecord {
  return {
    idHash: String(row.id_hash),
    accountId: String(row.account_id),
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

export function toKey(row: Row): ApiKeyRecord {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    name: String(row.name),
    displayPrefix: String(row.display_prefix),
    lookupHash: String(row.lookup_hash),
    secret: {
      keyVersion: Number(row.key_version),
      nonce: String(row.nonce),
      ciphertext: String(row.ciphertext),
      tag: String(row.tag),
    },
    createdAt: Number(row.created_at),
    lastUsedAt: timeOrNull(row.last_used_at),
    revokedAt: timeOrNull(row.revoked_at),
  };
}

export function toKeyOwner(row: Row): KeyOwner {
  return {
    keyId: String(row.key_id),
    accountId: String(row.account_id),
    plan: String(row.plan) as Plan,
    disabled: timeOrNull(row.disabled_at) !== null,
  };
}

export function toAccountSummary(row: Row): AccountSummary {
  return {
    id: String(row.id),
    email: String(row.email),
    plan: String(row.plan) as Plan,
    createdAt: Number(row.created_at),
    disabledAt: timeOrNull(row.disabled_at),
    activeKeys: Number(row.active_keys),
    lastUsedAt: timeOrNull(row.last_used_at),
  };
}

/** In the order of `apiKeyValues`. */
export const API_KEY_COLUMNS =
  'id, account_id, name, display_prefix, lookup_hash, key_version, nonce, ciphertext, tag, created_at, last_used_at, revoked_at';

export function apiKeyValues(key: ApiKeyRecord): (string | number | null)[] {
  return [
    key.id,
    key.accountId,
    key.name,
    key.displayPrefix,
    key.lookupHash,
    key.secret.keyVersion,
    key.secret.nonce,
    key.secret.ciphertext,
    key.secret.tag,
    key.createdAt,
    key.lastUsedAt,
    key.revokedAt,
  ];
}
