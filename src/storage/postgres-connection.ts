import pg from 'pg';
import { StorageUnavailableError } from './errors.ts';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.ts';
import type { Row } from './rows.ts';

/** Every instance hears on it that key owners changed (revocation, plan, disable). */
const CHANGES_CHANNEL = 'netinfo_key_owners';
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** One number for all netinfo instances: migrations run under this advisory lock, one at a time. */
const MIGRATION_LOCK = 7_245_031;

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((error: unknown) => {
    throw new StorageUnavailableError(error);
  });
  // A connection that breaks while checked out reports it as an 'error' event too, which nobody
  // would hear (a crash): the failing query already says it, and the client is then discarded.
  const ignore = () => {};
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((failure: Error) => {
      broken = failure;
    });
    throw error instanceof StorageUnavailableError ? error : new StorageUnavailableError(error);
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}

/** The server cannot be reached now, as opposed to a configuration the server refuses. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

function isServerUnreachable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    // pg's own time-outs and dropped connections carry no code.
    if (/timeout|Connection terminated/i.test(cause.message)) return true;
  }
  return false;
}

export async function migratePostgres(pool: pg.Pool, now: () => number = Date.now): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(MIGRATIONS_TABLE);
    const current = Number(
      (await client.query('SELECT MAX(version) AS version FROM schema_migrations')).rows[0]?.version ?? 0,
    );
    let version = current;
    for (const migration of pendingMigrations(current)) {
      for (const statement of migration.statements) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now(),
      ]);
      version = migration.version;
    }
    return version;
  });
}

export interface PostgresConnection {
  /** Migrates first if the server was unreachable until now. */
  query(text: string, values?: unknown[]): Promise<Row[]>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Within the caller's transaction, so the news leaves only with the commit. */
  announce(client: pg.PoolClient): Promise<unknown>;
  changedElsewhere(): boolean;
  unavailable(): string | undefined;
  close(): Promise<void>;
}

export interface PostgresConnectionOptions {
  onError?: (error: Error) => void;
  poolSize?: number;
  /**
   * Start even when the server cannot be reached (the service: requests without a key do not
   * need it), migrating once it can. Configuration errors (an unknown database, a refused
   * password) still fail at once. Without it (the admin command) any failure rejects.
   */
  waitForServer?: boolean;
  /** Doubling up to 30 s (tests shorten it). */
  retryFirstMs?: number;
  /** LISTEN for the accounts' change notices (false: a second connection that needs none). */
  notifications?: boolean;
}

export async function openPostgresConnection(
  url: string,
  options: PostgresConnectionOptions = {},
): Promise<PostgresConnection> {
  const onError = options.onError ?? (() => {});
  const retryFirstMs = options.retryFirstMs ?? RETRY_FIRST_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', onError);

  // Until the migrations have run, every call first tries them (one attempt at a time), so the
  // first request after the server comes back does not wait for the next scheduled retry.
  let migrated = false;
  let migrating: Promise<void> | undefined;
  const migrate = () => {
    migrating ??= migratePostgres(pool)
      .then(() => {
        migrated = true;
      })
      .finally(() => {
        migrating = undefined;
      });
    return migrating;
  };

  // While the LISTEN connection is down, keys verified before stay usable from the cache: with the
  // database down nothing can change who owns a key; with only this connection down a change is
  // heard late, by at most the retry delay, because every reconnection counts as "changed".
  let changed = false;
  let listener: pg.Client | undefined;
  let closed = false;
  let retryMs = retryFirstMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let listenedBefore = false;
  let outage: { since: number } | undefined;
  const failed = (error: Error) => {
    outage ??= { since: Date.now() };
    onError(error);
    if (closed) return;
    clearTimeout(retryTimer); // one retry pending at most
    retryTimer = setTimeout(() => void connect(), retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
  const listen = async () => {
    if (options.notifications === false) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    client.on('notification', () => {
      changed = true;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    let lost = false;
    client.on('error', (error) => {
      // A broken connection may report more than one error; it is lost, and retried, once.
      if (lost) return;
      lost = true;
      listener = undefined;
      void client.end().catch(() => {});
      failed(error);
    });
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    // A reconnection (not the first connection) may have missed announcements.
    if (listenedBefore) changed = true;
    listenedBefore = true;
    listener = client;
    outage = undefined;
    retryMs = retryFirstMs;
  };
  const connect = async () => {
    try {
      if (!migrated) await migrate();
      await listen();
    } catch (error) {
      failed(error as Error);
    }
  };

  try {
    await migrate();
    await listen();
  } catch (error) {
    if (!options.waitForServer || !isServerUnreachable(error)) {
      await pool.end().catch(() => {});
      throw error;
    }
    failed(error as Error);
  }

  const whenMigrated = async () => {
    if (!migrated) await migrate();
  };
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>) => {
    await whenMigrated();
    return inTransaction(pool, work);
  };

  const query = async (text: string, values: unknown[] = []) => {
    await whenMigrated();
    try {
      return (await pool.query(text, values)).rows as Row[];
    } catch (error) {
      throw new StorageUnavailableError(error);
    }
  };

  return {
    query,
    transaction,
    announce: (client) => client.query(`NOTIFY ${CHANGES_CHANNEL}`),
    // Set by a NOTIFY from any instance (ours included: harmless, the cache is refilled).
    changedElsewhere() {
      if (!changed) return false;
      changed = false;
      return true;
    },
    unavailable() {
      if (outage === undefined) return undefined;
      // Why goes to the log: /readyz is public, and error messages name the database's address.
      const since = new Date(outage.since).toISOString();
      return migrated
        ? `account database change notifications lost since ${since}: revocations may be heard late; retrying`
        : `account database not reached since ${since}: keys and the account API answer 502; retrying`;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
