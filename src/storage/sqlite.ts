import type { DatabaseSync } from 'node:sqlite';
import type { AccountRepository, KeyOwner } from './repository.ts';
import {
  API_KEY_COLUMNS,
  apiKeyValues,
  type Row,
  toAccount,
  toAccountSummary,
  toKey,
  toKeyOwner,
  toSession,
} from './rows.ts';
import { inWriteTransaction, openSqliteDatabase, type SqliteOpenOptions } from './sqlite-database.ts';
import { guardAgainstCorruption } from './sqlite-integrity.ts';
import { reportingFullStorage } from './write-failures.ts';

/** `node:sqlite` is synchronous underneath, so each call is atomic here. */
export function openSqliteRepository(file: string, options: SqliteOpenOptions = {}): AccountRepository {
  return sqliteRepository(openSqliteDatabase(file, options));
}

/** Over a database already opened and migrated: tests set PRAGMAs on it first. */
export function sqliteRepository(db: DatabaseSync): AccountRepository {
  const statement = (sql: string) => db.prepare(sql);
  const sql = {
    insertAccount: statement(
      `INSERT INTO accounts (id, email, password_hash, plan, created_at, disabled_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (email) DO NOTHING`,
    ),
    accountByEmail: statement('SELECT * FROM accounts WHERE email = ?'),
    accountById: statement('SELECT * FROM accounts WHERE id = ?'),
    updatePassword: statement('UPDATE accounts SET password_hash = ? WHERE id = ?'),
    setPlan: statement('UPDATE accounts SET plan = ? WHERE id = ?'),
    setDisabled: statement('UPDATE accounts SET disabled_at = ? WHERE id = ?'),
    listAccounts: statement(
      `SELECT a.id, a.email, a.plan, a.created_at, a.disabled_at,
              COUNT(k.id) - COUNT(k.revoked_at) AS active_keys, MAX(k.last_used_at) AS last_used_at
       FROM accounts a LEFT JOIN api_keys k ON k.account_id = a.id
       GROUP BY a.id, a.email, a.plan, a.created_at, a.disabled_at
       ORDER BY a.created_at, a.id`,
    ),
    insertSession: statement(
      'INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    ),
    sessionById: statement('SELECT * FROM sessions WHERE id_hash = ?'),
    touchSession: statement('UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id_hash = ?'),
    deleteSession: statement('DELETE FROM sessions WHERE id_hash = ?'),
    deleteSessionsOf: statement('DELETE FROM sessions WHERE account_id = ?'),
    deleteExpired: statement('DELETE FROM sessions WHERE expires_at <= ?'),
    countActiveKeys: statement('SELECT COUNT(*) AS count FROM api_keys WHERE account_id = ? AND revoked_at IS NULL'),
    insertKey: statement(`INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    activeKeys: statement('SELECT * FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, id'),
    keyOwner: statement(
      `SELECT k.id AS key_id, a.id AS account_id, a.plan AS plan, a.disabled_at AS disabled_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.lookup_hash = ? AND k.revoked_at IS NULL`,
    ),
    revokeKey: statement('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL'),
    recordUse: statement(
      'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
    ),
    keysNotAtVersion: statement('SELECT * FROM api_keys WHERE key_version <> ? ORDER BY created_at, id'),
    oneKeyPerVersion: statement(
      'SELECT * FROM api_keys WHERE id IN (SELECT MIN(id) FROM api_keys GROUP BY key_version) ORDER BY key_version',
    ),
    replaceSecret: statement(
      `UPDATE api_keys SET lookup_hash = ?, key_version = ?, nonce = ?, ciphertext = ?, tag = ?
       WHERE id = ? AND key_version = ?`,
    ),
    dataVersion: statement('PRAGMA data_version'),
  };
  const dataVersion = () => Number((sql.dataVersion.get() as Row).data_version);
  let seenVersion = dataVersion();

  const repository = guardAgainstCorruption({
    async createAccount(account) {
      const result = sql.insertAccount.run(
        account.id,
        account.email,
        account.passwordHash,
        account.plan,
        account.createdAt,
        account.disabledAt,
      );
      return result.changes === 1 ? 'created' : 'duplicate-email';
    },
    async findAccountByEmail(email) {
      const row = sql.accountByEmail.get(email) as Row | undefined;
      return row && toAccount(row);
    },
    async findAccountById(id) {
      const row = sql.accountById.get(id) as Row | undefined;
      return row && toAccount(row);
    },
    async updatePasswordHash(accountId, passwordHash) {
      sql.updatePassword.run(passwordHash, accountId);
    },
    async setPlan(accountId, plan) {
      sql.setPlan.run(plan, accountId);
    },
    async setDisabled(accountId, disabledAt) {
      sql.setDisabled.run(disabledAt, accountId);
    },
    async listAccounts() {
      return (sql.listAccounts.all() as Row[]).map(toAccountSummary);
    },

    async createSession(session) {
      sql.insertSession.run(
        session.idHash,
        session.accountId,
        session.createdAt,
        session.lastSeenAt,
        session.expiresAt,
      );
    },
    async findSession(idHash) {
      const row = sql.sessionById.get(idHash) as Row | undefined;
      return row && toSession(row);
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      sql.touchSession.run(lastSeenAt, expiresAt, idHash);
    },
    async deleteSession(idHash) {
      sql.deleteSession.run(idHash);
    },
    async deleteSessionsOfAccount(accountId) {
      sql.deleteSessionsOf.run(accountId);
    },
    async deleteExpiredSessions(now) {
      return Number(sql.deleteExpired.run(now).changes);
    },

    async createKeyWithinQuota(key, quota) {
      return inWriteTransaction(db, () => {
        const active = Number((sql.countActiveKeys.get(key.accountId) as Row).count);
        if (active >= quota) return 'quota-reached' as const;
        sql.insertKey.run(...apiKeyValues(key));
        return 'created' as const;
      });
    },
    async countActiveKeys(accountId) {
      return Number((sql.countActiveKeys.get(accountId) as Row).count);
    },
    async listActiveKeys(accountId) {
      return (sql.activeKeys.all(accountId) as Row[]).map(toKey);
    },
    async findKeyOwner(lookupHash): Promise<KeyOwner | undefined> {
      const row = sql.keyOwner.get(lookupHash) as Row | undefined;
      return row && toKeyOwner(row);
    },
    async revokeKey(accountId, keyId, revokedAt) {
      return sql.revokeKey.run(revokedAt, keyId, accountId).changes === 1;
    },
    async listKeysNotAtVersion(version) {
      return (sql.keysNotAtVersion.all(version) as Row[]).map(toKey);
    },
    async oneKeyPerVersion() {
      return (sql.oneKeyPerVersion.all() as Row[]).map(toKey);
    },
    async replaceKeySecret(keyId, fromVersion, lookupHash, secret) {
      const result = sql.replaceSecret.run(
        lookupHash,
        secret.keyVersion,
        secret.nonce,
        secret.ciphertext,
        secret.tag,
        keyId,
        fromVersion,
      );
      return result.changes === 1;
    },
    async recordKeyUse(uses) {
      if (uses.length === 0) return;
      inWriteTransaction(db, () => {
        for (const use of uses) sql.recordUse.run(use.usedAt, use.keyId, use.usedAt);
      });
    },

    // data_version changes only when another connection commits, never for our own writes.
    changedElsewhere() {
      const version = dataVersion();
      if (version === seenVersion) return false;
      seenVersion = version;
      return true;
    },
    // A local file does not come and go; a damaged one is answered by the guard.
    unavailable: () => undefined,
    async close() {
      if (db.isOpen) db.close();
    },
  });
  return reportingFullStorage(repository);
}
