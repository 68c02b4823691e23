import { type DatabaseLocation, databaseFile } from './config.ts';
import type { AccountRepository } from './repository.ts';
import { openSqliteRepository } from './sqlite.ts';

/** Opens (and migrates) the repository DATABASE_URL names. */
export async function openRepository(
  location: DatabaseLocation,
  dataDir: string,
  onError?: (error: Error) => void,
): Promise<AccountRepository> {
  if (location.kind === 'postgres') {
    // Loaded only when configured: the embedded SQLite default does not pay for the PostgreSQL client.
    const { openPostgresRepository } = await import('./postgres.ts');
    return openPostgresRepository(location.url, onError ? { onError } : {});
  }
  return openSqliteRepository(databaseFile(location, dataDir));
}
