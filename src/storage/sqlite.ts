import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { prepareDirectory } from './data-dir.ts';
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
import {
  checkIntegrity,
  corruptDatabaseError,
  emptyDatabaseError,
  guardAgainstCorruption,
  isCorruption,
} from './sqlite-integrity.ts';
import { reportingFullStorage } from './write-failures.ts';

/** How long a connection waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;
const SQLITE_BUSY = 5;

export interface SqliteOpenOptions {
  /** Told when the integrity check at start is skipped (a large file). */
  onWarning?: (message: string) => void;
}

/**
 * Opens (creating if needed) the SQLite database, checks it is whole, and brings its schema up to
 * date.
 *
 * WAL lets readers run beside the one writer, also across processes (the admin command, several
 * workers). `synchronous = FULL` syncs the WAL on every commit, so a write that returned is on disk
 * even if the machine loses power right after; NORMAL would survive a killed process but not a
 * power cut, and our writes (sign-ups, keys, sessions, a batched last-used flush) are too rare for
 * the difference in speed to matter. The file is created with mode 0600: it holds password hashes
 * and encrypted keys (SQLite gives its -wal and -shm files the same mode).
 *
 * A damaged file stops the open with one line saying what to do (see sqlite-integrity.ts): an
 * empty file, a failed PRAGMA quick_check (skipped above QUICK_CHECK_MAX_BYTES), or a damaged page
 * met while switching to WAL or migrating.
 */
export function openSqliteDatabase(file: string, options: SqliteOpenOptions = {}): DatabaseSync {
  prepareDirectory(path.dirname(file), 'the SQLite database directory');
  createDatabaseFile(file);
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  try {
    checkIntegrity(db, file, options.onWarning ?? (() => {}));
    switchToWal(db);
    db.exec('PRAGMA synchronous = FULL');
    migrate(db);
  } catch (error) {
    db.close();
    throw isCorruption(error) ? corruptDatabaseError(file, (error as Error).message) : error;
  }
  return db;
}

/**
 * Creates the database file whole, unless it exists: migrated under a temporary name (mode 0600),
 * then hard-linked into place, which fails if another process (a second worker) got there first.
 * So no process ever finds the file without its schema, and a file of 0 bytes can only be one whose
 * contents were lost: it is refused rather than taken for a new, empty database.
 */
function createDatabaseFile(file: string): void {
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (size === 0) throw emptyDatabaseError(file);
  if (size !== undefined) return;
  const temporary = `${file}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    closeSync(openSync(temporary, 'wx', 0o600));
    const fresh = new DatabaseSync(temporary, { enableForeignKeyConstraints: true });
    try {
      migrate(fresh);
    } finally {
      fresh.close();
    }
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Switches a new database to WAL, trying again while another process does the same. The switch
 * upgrades a shared lock to an exclusive one, and SQLite answers "database is locked" at once rather
 * than wait its busy timeout (waiting could deadlock two upgraders): with WORKERS > 1 on a fresh
 * DATA_DIR, about one start in thirty lost that race and the worker exited.
 */
function switchToWal(db: DatabaseSync): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const deadline = Date.now() + BUSY_TIMEOUT_MS; ; ) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      const busy = (error as { errcode?: number }).errcode === SQLITE_BUSY;
      if (!busy || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

/** Applies pending migrations in one write transaction, so concurrent starters apply each once. */
export function migrate(db: DatabaseSync, now: () => number = Date.now): number {
  return inWriteTransaction(db, () => {
    db.exec(MIGRATIONS_TABLE);
    const current = Number(
      (db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as Row | undefined)?.version ?? 0,
    );
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    let version = current;
    for (const migration of pendingMigrations(current)) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, migration.name, now());
      version = migration.version;
    }
    return version;
  });
}

/** BEGIN IMMEDIATE takes the write lock first, so a read-then-write inside cannot be overtaken. */
function inWriteTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * The repository over SQLite (`node:sqlite`, synchronous underneath, so each call is atomic here).
 * A damaged page met by any call makes it unavailable from then on (see guardAgainstCorruption).
 */
export function openSqliteRepository(file: string, options: SqliteOpenOptions = {}): AccountRepository {
  return sqliteRepository(openSqliteDatabase(file, options));
}

/** The repository over a database already opened and migrated (tests set PRAGMAs on it first). */
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
    // A local file, opened at startup: it does not come and go (a damaged one: see the guard).
    unavailable: () => undefined,
    async close() {
      if (db.isOpen) db.close();
    },
  });
  return reportingFullStorage(repository);
}
