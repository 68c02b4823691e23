import pg from 'pg';
import { StorageUnavailableError } from './errors.ts';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.ts';
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

/** The channel on which every instance hears that key owners changed (revocation, plan, disable). */
const CHANGES_CHANNEL = 'netinfo_key_owners';
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** One number for all netinfo instances: migrations run under this advisory lock, one at a time. */
const MIGRATION_LOCK = 7_245_031;

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((error: unknown) => {
    throw new StorageUnavailableError(error);
  });
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error instanceof StorageUnavailableError ? error : new StorageUnavailableError(error);
  } finally {
    client.release();
  }
}

/**
 * Failures that say the server cannot be reached now (down, restarting, out of connections, a
 * network or name-resolution failure), as opposed to a configuration the server refuses.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

function isServerUnreachable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    // pg's own time-outs and dropped connections carry no code.
    if (/timeout|Connection terminated/i.test(cause.message)) return true;
  }
  return false;
}

/** Applies pending migrations, one instance at a time (advisory lock), each in the same transaction. */
export async function migratePostgres(pool: pg.Pool, now: () => number = Date.now): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(MIGRATIONS_TABLE);
    const current = Number(
      (await client.query('SELECT MAX(version) AS version FROM schema_migrations')).rows[0]?.version ?? 0,
    );
    let version = current;
    for (const migration of pendingMigrations(current)) {
      for (const statement of migration.statements) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now(),
      ]);
      version = migration.version;
    }
    return version;
  });
}

/**
 * The repository over PostgreSQL (`pg`), for several instances sharing accounts. Changes that
 * affect who owns a valid key are announced with NOTIFY in the same transaction, and every
 * instance LISTENs, so a key revoked through one instance is dropped from the others' caches as
 * soon as the change commits. Connection failures reject the call; the routes answer 502.
 */
export async function openPostgresRepository(
  url: string,
  options: {
    onError?: (error: Error) => void;
    poolSize?: number;
    /**
     * Start even when the server cannot be reached (the service: requests without a key do not
     * need it), migrating once it can. Configuration errors (an unknown database, a refused
     * password) still fail at once. Without it (the admin command) any failure rejects.
     */
    waitForServer?: boolean;
    /** The first retry delay, doubling up to 30 s (tests shorten it). */
    retryFirstMs?: number;
  } = {},
): Promise<AccountRepository> {
  const onError = options.onError ?? (() => {});
  const retryFirstMs = options.retryFirstMs ?? RETRY_FIRST_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', onError);

  // Until the migrations have run, every call first tries them (one attempt at a time), so the
  // first request after the server comes back does not wait for the next scheduled retry.
  let migrated = false;
  let migrating: Promise<void> | undefined;
  const migrate = () => {
    migrating ??= migratePostgres(pool)
      .then(() => {
        migrated = true;
      })
      .finally(() => {
        migrating = undefined;
      });
    return migrating;
  };

  // The LISTEN connection: lost with the server (a restart, a crash) and taken up again until it
  // is back, waiting 1 s, then twice as long each time, up to 30 s. While it is down, keys verified
  // before stay usable from the cache: with the database down nothing can change who owns a key;
  // with only this connection down a change is heard late, by at most the retry delay, because
  // every reconnection counts as "changed" (what was announced meanwhile was missed).
  let changed = false;
  let listener: pg.Client | undefined;
  let closed = false;
  let retryMs = retryFirstMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let listenedBefore = false;
  /** Since when the server cannot be used (for /readyz); undefined while it can. */
  let outage: { since: number } | undefined;
  const failed = (error: Error) => {
    outage ??= { since: Date.now() };
    onError(error);
    if (closed) return;
    clearTimeout(retryTimer); // one retry pending at most
    retryTimer = setTimeout(() => void connect(), retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
  const listen = async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    client.on('notification', () => {
      changed = true;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    let lost = false;
    client.on('error', (error) => {
      // A broken connection may report more than one error; it is lost, and retried, once.
      if (lost) return;
      lost = true;
      listener = undefined;
      void client.end().catch(() => {});
      failed(error);
    });
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    // A reconnection (not the first connection) may have missed announcements.
    if (listenedBefore) changed = true;
    listenedBefore = true;
    listener = client;
    outage = undefined;
    retryMs = retryFirstMs;
  };
  /** Migrates if that is still to do, then listens; on failure, tries again later. */
  const connect = async () => {
    try {
      if (!migrated) await migrate();
      await listen();
    } catch (error) {
      failed(error as Error);
    }
  };

  try {
    await migrate();
    await listen();
  } catch (error) {
    if (!options.waitForServer || !isServerUnreachable(error)) {
      await pool.end().catch(() => {});
      throw error;
    }
    failed(error as Error);
  }

  /** Runs the migrations first if the server was not reachable until now (failing as StorageUnavailableError). */
  const whenMigrated = async () => {
    if (!migrated) await migrate();
  };
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>) => {
    await whenMigrated();
    return inTransaction(pool, work);
  };

  const query = async (text: string, values: unknown[] = []) => {
    await whenMigrated();
    try {
      return (await pool.query(text, values)).rows as Row[];
    } catch (error) {
      throw new StorageUnavailableError(error);
    }
  };
  const announce = (client: pg.PoolClient | pg.Pool) => client.query(`NOTIFY ${CHANGES_CHANNEL}`);

  return {
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

    // Set by a NOTIFY from any instance (ours included: harmless, the cache is refilled).
    changedElsewhere() {
      if (!changed) return false;
      changed = false;
      return true;
    },
    unavailable() {
      if (outage === undefined) return undefined;
      // Why goes to the log: /readyz is public, and error messages name the database's address.
      const since = new Date(outage.since).toISOString();
      return migrated
        ? `account database change notifications lost since ${since}: revocations may be heard late; retrying`
        : `account database not reached since ${since}: keys and the account API answer 502; retrying`;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
