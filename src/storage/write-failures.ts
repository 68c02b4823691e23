import { StorageFullError } from './errors.ts';
import type { AccountRepository } from './repository.ts';

const SQLITE_FULL = 13;
/**
 * PostgreSQL's insufficient_resources that a write meets: disk_full and out_of_memory (53300,
 * too_many_connections, is an outage: postgres-connection.ts). 53400 configuration_limit_exceeded
 * is a setting, not space, so it stays a plain failure.
 */
const POSTGRES_NO_SPACE = new Set(['53100', '53200']);

export function isStorageFull(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { errcode, code } = cause as { errcode?: unknown; code?: unknown };
    if (typeof errcode === 'number' && (errcode & 0xff) === SQLITE_FULL) return true;
    if (typeof code === 'string' && POSTGRES_NO_SPACE.has(code)) return true;
  }
  return false;
}

/** Their success shows the database took new data: the full state ends with one. */
const STORING = new Set<string>(['createAccount', 'createSession', 'createKeyWithinQuota']);
const UNWRAPPED = new Set<string>(['unavailable', 'close', 'changedElsewhere']);

/**
 * Reported through `unavailable()` for /readyz until a later write that needs room succeeds.
 * Nothing is refused in advance: space freed by the operator is used by the next request.
 */
export function reportingFullStorage(repository: AccountRepository, now: () => number = Date.now): AccountRepository {
  let fullSince: number | undefined;
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repository) as [string, (...args: unknown[]) => unknown][]) {
    wrapped[name] = UNWRAPPED.has(name)
      ? method
      : async (...args: unknown[]) => {
          try {
            const result = await method(...args);
            if (STORING.has(name)) fullSince = undefined;
            return result;
          } catch (error) {
            if (!isStorageFull(error)) throw error;
            fullSince ??= now();
            throw new StorageFullError(error);
          }
        };
  }
  wrapped.unavailable = () =>
    repository.unavailable() ??
    (fullSince === undefined
      ? undefined
      : `account database full (a write was refused for lack of space at ${new Date(fullSince).toISOString()}): sign-ups, logins and new keys answer 503 until space is freed; existing keys still work`);
  return wrapped as unknown as AccountRepository;
}
