/** Answered 502: requests that need accounts fail clearly while the public API keeps working. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
  constructor(cause: unknown) {
    super(`account database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * A write refused for lack of space (SQLite's "database or disk is full", PostgreSQL's disk_full or
 * out_of_memory), answered 503; reads (keys, logins' checks) go on.
 */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
  constructor(cause: unknown) {
    super(`account database cannot store: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
