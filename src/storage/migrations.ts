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
  {
    version: 2,
    name: 'monitors, their runs, incidents and notification deliveries',
    statements: [
      `CREATE TABLE monitors (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        target TEXT NOT NULL,
        options TEXT NOT NULL,
        interval_seconds INTEGER NOT NULL,
        locations TEXT NOT NULL,
        conditions TEXT NOT NULL,
        webhooks TEXT NOT NULL,
        emails TEXT NOT NULL,
        secret_version INTEGER NOT NULL,
        secret_nonce TEXT NOT NULL,
        secret_ciphertext TEXT NOT NULL,
        secret_tag TEXT NOT NULL,
        paused_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        next_run_at BIGINT,
        state TEXT,
        state_since BIGINT,
        state_due_at BIGINT,
        baseline TEXT
      )`,
      'CREATE INDEX monitors_by_account ON monitors (account_id, created_at)',
      `CREATE TABLE monitor_runs (
        id TEXT PRIMARY KEY,
        monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
        due_at BIGINT NOT NULL,
        started_at BIGINT NOT NULL,
        node TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        response_ms DOUBLE PRECISION,
        state TEXT NOT NULL,
        cause TEXT,
        summary TEXT NOT NULL
      )`,
      'CREATE UNIQUE INDEX monitor_runs_once ON monitor_runs (monitor_id, due_at, node)',
      'CREATE INDEX monitor_runs_by_time ON monitor_runs (monitor_id, started_at)',
      'CREATE INDEX monitor_runs_by_age ON monitor_runs (started_at)',
      `CREATE TABLE monitor_incidents (
        id TEXT PRIMARY KEY,
        monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
        started_at BIGINT NOT NULL,
        ended_at BIGINT,
        cause TEXT NOT NULL
      )`,
      'CREATE INDEX monitor_incidents_by_time ON monitor_incidents (monitor_id, started_at)',
      `CREATE TABLE monitor_deliveries (
        id TEXT PRIMARY KEY,
        monitor_id TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        event TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        state TEXT NOT NULL,
        attempts TEXT NOT NULL,
        next_attempt_at BIGINT
      )`,
      'CREATE INDEX monitor_deliveries_by_time ON monitor_deliveries (monitor_id, created_at)',
      'CREATE INDEX monitor_deliveries_due ON monitor_deliveries (next_attempt_at)',
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
