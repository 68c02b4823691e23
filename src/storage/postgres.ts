import { openPostgresConnection, type PostgresConnectionOptions } from './postgres-connection.ts';
import type { AccountRepository, KeyOwner } from './repository.ts';
import { API_KEY_COLUMNS, apiKeyValues, toAccount, toAccountSummary, toKey, toKeyOwner, toSession } from './rows.ts';
import { reportingFullStorage } from './write-failures.ts';

/**
 * Changes that affect who owns a valid key are announced with NOTIFY in the same transaction, so a
 * key revoked through one instance is dropped from the others' caches as soon as the change commits.
 */
export async function openPostgresRepository(
  url: string,
  options: PostgresConnectionOptions = {},
): Promise<AccountRepository> {
  const { query, transaction, announce, changedElsewhere, unavailable, close } = await openPostgresConnection(
    url,
    options,
  );
  return reportingFullStorage({
    async createAccount(account) {
      const rows = await query(
        `INSERT INTO accounts (id, email, password_hash, plan, created_at, disabled_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (email) DO NOTHING RETURNING id`,
        [account.id, account.email, account.passwordHash, account.plan, account.createdAt, account.disabledAt],
      );
      return rows.length === 1 ? 'created' : 'duplicate-email';
    },
    async findAccountByEmail(email) {
      const [row] = await query('SELECT * FROM accounts WHERE email = $1', [email]);
      return row && toAccount(row);
    },
    async findAccountById(id) {
      const [row] = await query('SELECT * FROM accounts WHERE id = $1', [id]);
      return row && toAccount(row);
    },
    async updatePasswordHash(accountId, passwordHash) {
      await query('UPDATE accounts SET password_hash = $1 WHERE id = $2', [passwordHash, accountId]);
    },
    async setPlan(accountId, plan) {
      await transaction(async (client) => {
        await client.query('UPDATE accounts SET plan = $1 WHERE id = $2', [plan, accountId]);
        await announce(client);
      });
    },
    async setDisabled(accountId, disabledAt) {
      await transaction(async (client) => {
        await client.query('UPDATE accounts SET disabled_at = $1 WHERE id = $2', [disabledAt, accountId]);
        await announce(client);
      });
    },
    async listAccounts() {
      const rows = await query(
        `SELECT a.id, a.email, a.plan, a.created_at, a.disabled_at,
                COUNT(k.id) - COUNT(k.revoked_at) AS active_keys, MAX(k.last_used_at) AS last_used_at
         FROM accounts a LEFT JOIN api_keys k ON k.account_id = a.id
         GROUP BY a.id, a.email, a.plan, a.created_at, a.disabled_at
         ORDER BY a.created_at, a.id`,
      );
      return rows.map(toAccountSummary);
    },

    async createSession(session) {
      await query(
        'INSERT INTO sessions (id_hash, account_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [session.idHash, session.accountId, session.createdAt, session.lastSeenAt, session.expiresAt],
      );
    },
    async findSession(idHash) {
      const [row] = await query('SELECT * FROM sessions WHERE id_hash = $1', [idHash]);
      return row && toSession(row);
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      await query('UPDATE sessions SET last_seen_at = $1, expires_at = $2 WHERE id_hash = $3', [
        lastSeenAt,
        expiresAt,
        idHash,
      ]);
    },
    async deleteSession(idHash) {
      await query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
    },
    async deleteSessionsOfAccount(accountId) {
      await query('DELETE FROM sessions WHERE account_id = $1', [accountId]);
    },
    async deleteExpiredSessions(now) {
      return transaction(async (client) => {
        return (await client.query('DELETE FROM sessions WHERE expires_at <= $1', [now])).rowCount ?? 0;
      });
    },

    async createKeyWithinQuota(key, quota) {
      return transaction(async (client) => {
        // Locking the account row serialises concurrent creations for one account, so the count
        // below cannot be overtaken: exactly `quota` keys get through.
        const owner = await client.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [key.accountId]);
        if (owner.rowCount === 0) throw new Error('no such account');
        const { rows } = await client.query(
          'SELECT COUNT(*) AS count FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
          [key.accountId],
        );
        if (Number(rows[0]?.count) >= quota) return 'quota-reached' as const;
        await client.query(
          `INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          apiKeyValues(key),
        );
        return 'created' as const;
      });
    },
    async countActiveKeys(accountId) {
      const [row] = await query('SELECT COUNT(*) AS count FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [
        accountId,
      ]);
      return Number(row?.count ?? 0);
    },
    async listActiveKeys(accountId) {
      const rows = await query(
        'SELECT * FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id',
        [accountId],
      );
      return rows.map(toKey);
    },
    async findKeyOwner(lookupHash): Promise<KeyOwner | undefined> {
      const [row] = await query(
        `SELECT k.id AS key_id, a.id AS account_id, a.plan AS plan, a.disabled_at AS disabled_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.lookup_hash = $1 AND k.revoked_at IS NULL`,
        [lookupHash],
      );
      return row && toKeyOwner(row);
    },
    async revokeKey(accountId, keyId, revokedAt) {
      return transaction(async (client) => {
        const result = await client.query(
          'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
          [revokedAt, keyId, accountId],
        );
        if (result.rowCount === 1) await announce(client);
        return result.rowCount === 1;
      });
    },
    async listKeysNotAtVersion(version) {
      return (await query('SELECT * FROM api_keys WHERE key_version <> $1 ORDER BY created_at, id', [version])).map(
        toKey,
      );
    },
    async oneKeyPerVersion() {
      return (
        await query(
          'SELECT * FROM api_keys WHERE id IN (SELECT MIN(id) FROM api_keys GROUP BY key_version) ORDER BY key_version',
        )
      ).map(toKey);
    },
    async replaceKeySecret(keyId, fromVersion, lookupHash, secret) {
      const rows = await query(
        `UPDATE api_keys SET lookup_hash = $1, key_version = $2, nonce = $3, ciphertext = $4, tag = $5
         WHERE id = $6 AND key_version = $7 RETURNING id`,
        [lookupHash, secret.keyVersion, secret.nonce, secret.ciphertext, secret.tag, keyId, fromVersion],
      );
      return rows.length === 1;
    },
    async recordKeyUse(uses) {
      if (uses.length === 0) return;
      await transaction(async (client) => {
        for (const use of uses) {
          await client.query(
            'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)',
            [use.usedAt, use.keyId],
          );
        }
      });
    },

    changedElsewhere,
    unavailable,
    close,
  });
}
