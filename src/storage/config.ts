import path from 'node:path';
import type { ConfigVariable } from '../config-values.ts';

/** Where accounts live: a SQLite file (`file: null` means `DATA_DIR/netinfo.db`), or PostgreSQL. */
export type DatabaseLocation =
  | { readonly kind: 'sqlite'; readonly file: string | null }
  | { readonly kind: 'postgres'; readonly url: string };

export const DEFAULT_DATABASE_FILE = 'netinfo.db';

/**
 * `sqlite:<path>` (also `sqlite://<path>`, so `sqlite:///var/lib/netinfo.db` is absolute) or unset.
 * Anything else is refused by name, without echoing the URL (it may carry a password).
 */
export function parseDatabaseUrl(raw: string | undefined): DatabaseLocation {
  const value = raw?.trim() ?? '';
  if (value === '') return { kind: 'sqlite', file: null };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'sqlite') {
    const rest = value.slice('sqlite:'.length);
    const file = rest.startsWith('//') ? rest.slice(2) : rest;
    if (file === '') throw new Error('sqlite: needs a file path, e.g. sqlite:/var/lib/netinfo/netinfo.db');
    return { kind: 'sqlite', file: path.resolve(file) };
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    try {
      new URL(value);
    } catch {
      throw new Error('the postgres:// URL is malformed (expected postgres://user:password@host:port/database)');
    }
    return { kind: 'postgres', url: value };
  }
  throw new Error(
    `unsupported database ${scheme ? `"${scheme}:"` : '(no scheme)'}; use sqlite:<path> or postgres://user:password@host:port/database, or leave DATABASE_URL unset for DATA_DIR/netinfo.db`,
  );
}

export const storageConfigVariables = {
  database: {
    name: 'DATABASE_URL',
    defaultText: '`DATA_DIR/netinfo.db` (SQLite)',
    description:
      'Where accounts, sessions and API keys are stored: `sqlite:<path>` (SQLite through node:sqlite, WAL, every commit synced to disk) or `postgres://user:password@host:port/database` (for several instances; same migrations). Other schemes are refused at startup.',
    parse: parseDatabaseUrl,
  },
} satisfies Record<string, ConfigVariable<unknown>>;

export function databaseFile(location: Extract<DatabaseLocation, { kind: 'sqlite' }>, dataDir: string): string {
  return location.file ?? path.join(dataDir, DEFAULT_DATABASE_FILE);
}
