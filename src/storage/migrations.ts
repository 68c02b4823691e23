/**
 * Never edit a released migration: add the next one.
 *
 * The SQL is the common ground of SQLite and PostgreSQL so one list serves both: TEXT ids made by
 * the service (no AUTOINCREMENT/SERIAL), BIGINT UNIX milliseconds for times, nullable times instead
 * of booleans (`revoked_at`, `disabled_at`), base64 TEXT instead of BLOB/BYTEA, one statement per
 * string.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, sessions and API keys',
    statements: [
      `CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        plan TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro')),
        created_at BIGINT NOT NULL,
        disabled_at BIGINT
      )`,
      `CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
      'CREATE INDEX sessions_by_account ON sessions (account_id)',
      'CREATE INDEX sessions_by_expiry ON sessions (expires_at)',
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        display_prefix TEXT NOT NULL,
        lookup_hash TEXT NOT NULL UNIQUE,
        key_version INTEGER NOT NULL,
        nonce TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        tag TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      )`,
      'CREATE INDEX api_keys_by_account ON api_keys (account_id)',
    ],
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((latest, migration) => Math.max(latest, migration.version), 0);

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

export function pendingMigrations(current: number): readonly Migration[] {
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `the database is at schema version ${current}, newer than this netinfo knows (${SCHEMA_VERSION}): run the newer netinfo, or restore a backup made for this one`,
    );
  }
  return MIGRATIONS.filter((migration) => migration.version > current);
}
