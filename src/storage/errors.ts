/**
 * The account database could not be reached or failed a statement. The error handler answers it
 * with a 502: requests that need accounts fail clearly while the public API keeps working.
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
  constructor(cause: unknown) {
    super(`account database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * The account database refused a write for lack of space (SQLite's "database or disk is full",
 * PostgreSQL's disk_full or out_of_memory). The error handler answers it with a 503 saying that
 * accounts cannot be stored now; reads (keys, logins' checks) go on.
 */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
  constructor(cause: unknown) {
    super(`account database cannot store: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
