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
