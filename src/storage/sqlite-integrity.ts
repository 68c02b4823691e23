import { statSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { StorageUnavailableError } from './errors.ts';
import type { AccountRepository } from './repository.ts';

const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/**
 * Above this size (the file and its WAL) the check at start is skipped: quick_check reads every
 * page. Measured on the project's 2-core VM, a 121 MiB database took 0.33 s with the file in the
 * page cache and 2.2 s from disk (about 55 MiB/s); the limit keeps the worst case near a second, so
 * /readyz stays within its start-up target. An account database that large holds hundreds of
 * thousands of accounts; its operator is told, once, that the check did not run.
 */
export const QUICK_CHECK_MAX_BYTES = 64 * 2 ** 20;

/** Extended codes included: the file is damaged, not busy or misused. */
export function isCorruption(error: unknown): boolean {
  const code = (error as { errcode?: unknown })?.errcode;
  return typeof code === 'number' && ((code & 0xff) === SQLITE_CORRUPT || (code & 0xff) === SQLITE_NOTADB);
}

export function corruptDatabaseError(file: string, detail: string): Error {
  return new Error(
    `the account database ${file} is damaged (${detail}); restore it from a backup (docs/deployment.md, "The account database and backups"), or move it away to start with no accounts`,
  );
}

/**
 * The file is created whole (see createDatabaseFile), so an empty one is never a new database but
 * one whose contents were lost; opening it would silently forget every account and key.
 */
export function emptyDatabaseError(file: string): Error {
  return new Error(
    `the account database ${file} is empty (0 bytes), though netinfo never leaves it so: its contents were lost (truncated, or an incomplete copy). Restore it from a backup, or move it away to start with no accounts`,
  );
}

function sizeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

/** quick_check skips comparing indexes to their tables: the full integrity_check took ten times as long. */
export function checkIntegrity(db: DatabaseSync, file: string, onWarning: (message: string) => void): void {
  const bytes = sizeOf(file) + sizeOf(`${file}-wal`);
  if (bytes > QUICK_CHECK_MAX_BYTES) {
    onWarning(
      `the account database is ${Math.round(bytes / 2 ** 20)} MiB: its integrity check at start (PRAGMA quick_check) runs only up to ${QUICK_CHECK_MAX_BYTES / 2 ** 20} MiB and was skipped; damage will be noticed when a query meets it`,
    );
    return;
  }
  let problem: string | undefined;
  try {
    const [row] = db.prepare('PRAGMA quick_check(1)').all() as { quick_check?: unknown }[];
    if (row?.quick_check !== 'ok') problem = `PRAGMA quick_check: ${String(row?.quick_check)}`;
  } catch (error) {
    if (!isCorruption(error)) throw error;
    problem = (error as Error).message;
  }
  if (problem !== undefined) throw corruptDatabaseError(file, problem.replace(/\s+/g, ' '));
}

/** They do not read the database's pages. */
const UNGUARDED = new Set<string>(['unavailable', 'close']);

/**
 * Once any statement found the file damaged, every call rejects with StorageUnavailableError until
 * the service is restarted on a restored file: writing on into a damaged file could spread the damage.
 */
export function guardAgainstCorruption(repository: AccountRepository, now: () => number = Date.now): AccountRepository {
  let corruptSince: number | undefined;
  const failed = (error: unknown): never => {
    if (isCorruption(error)) {
      corruptSince ??= now();
      throw new StorageUnavailableError(error);
    }
    throw error;
  };
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repository) as [string, (...args: unknown[]) => unknown][]) {
    guarded[name] = UNGUARDED.has(name)
      ? method
      : (...args: unknown[]) => {
          if (corruptSince !== undefined) {
            // Keys verified before stay usable from the cache, as in a PostgreSQL outage: no
            // process can change who owns a key in a file every opener now refuses.
            if (name === 'changedElsewhere') return false;
            return Promise.reject(new StorageUnavailableError(new Error('the database file is damaged')));
          }
          try {
            const result = method(...args);
            return result instanceof Promise ? result.catch(failed) : result;
          } catch (error) {
            return failed(error);
          }
        };
  }
  const unavailable = repository.unavailable;
  guarded.unavailable = () =>
    corruptSince === undefined
      ? unavailable()
      : `account database file damaged (found ${new Date(corruptSince).toISOString()}): keys and the account API answer 502 until it is restored from a backup and the service restarted`;
  return guarded as unknown as AccountRepository;
}
