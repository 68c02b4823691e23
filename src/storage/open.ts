import { type DatabaseLocation, databaseFile } from './config.ts';
import { openPostgresRepository } from './postgres.ts';
import type { AccountRepository } from './repository.ts';
import { openSqliteRepository } from './sqlite.ts';

/** Opens (and migrates) the repository DATABASE_URL names. */
export async function openRepository(
  location: DatabaseLocation,
  dataDir: string,
  onError?: (error: Error) => void,
): Promise<AccountRepository> {
  if (location.kind === 'postgres') return openPostgresRepository(location.url, onError ? { onError } : {});
  return openSqliteRepository(databaseFile(location, dataDir));
}
