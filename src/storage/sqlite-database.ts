import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { prepareDirectory } from './data-dir.ts';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.ts';
import type { Row } from './rows.ts';
import { checkIntegrity, corruptDatabaseError, emptyDatabaseError, isCorruption } from './sqlite-integrity.ts';

/** How long a connection waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;
const SQLITE_BUSY = 5;

export interface SqliteOpenOptions {
  /** Told when the integrity check at start is skipped (a large file). */
  onWarning?: (message: string) => void;
}

/**
 * WAL lets readers run beside the one writer, also across processes (the admin command, several
 * workers). `synchronous = FULL` syncs the WAL on every commit, so a write that returned is on disk
 * even if the machine loses power right after; NORMAL would survive a killed process but not a
 * power cut, and our writes (sign-ups, keys, sessions, a batched last-used flush) are too rare for
 * the difference in speed to matter. The file is created with mode 0600: it holds password hashes
 * and encrypted keys (SQLite gives its -wal and -shm files the same mode).
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
 * Migrated under a temporary name, then hard-linked into place, which fails if another process (a
 * second worker) got there first. So no process ever finds the file without its schema, and a file
 * of 0 bytes can only be one whose contents were lost: it is refused rather than taken for a new,
 * empty database.
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
 * Retried while another connection (another worker thread, or process) switches too: the switch upgrades a shared lock to an exclusive
 * one, and SQLite answers "database is locked" at once rather than wait its busy timeout (waiting
 * could deadlock two upgraders): with WORKERS > 1 on a fresh DATA_DIR, about one start in thirty
 * lost that race and the worker exited.
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

/** One write transaction, so concurrent starters apply each migration once. */
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
export function inWriteTransaction<T>(db: DatabaseSync, work: () => T): T {
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
