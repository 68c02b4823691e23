import { type DatabaseLocation, databaseFile } from './config.ts';
import type { AccountRepository } from './repository.ts';
import { openSqliteRepository } from './sqlite.ts';

/** With `waitForServer` (the service), a PostgreSQL server not reachable yet does not stop the start. */
export async function openRepository(
  location: DatabaseLocation,
  dataDir: string,
  options: { onError?: (error: Error) => void; onWarning?: (message: string) => void; waitForServer?: boolean } = {},
): Promise<AccountRepository> {
  if (location.kind === 'postgres') {
    // Loaded only when configured: the embedded SQLite default does not pay for the PostgreSQL client.
    const { openPostgresRepository } = await import('./postgres.ts');
    return openPostgresRepository(location.url, options);
  }
  return openSqliteRepository(databaseFile(location, dataDir), options);
}
