import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DatabaseLocation } from '../storage/config.ts';
import { databaseFile } from '../storage/config.ts';
import type { Row } from '../storage/rows.ts';

/**
 * The monitors' one repository speaks to either database through this: `?` placeholders (numbered
 * for PostgreSQL here), rows as plain objects, and a transaction whose statements no other caller's
 * can interleave with.
 */
export interface Sql {
  all(text: string, values?: readonly unknown[]): Promise<Row[]>;
  /** Rows changed. */
  run(text: string, values?: readonly unknown[]): Promise<number>;
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A connection of its own to the accounts' file, at `synchronous = NORMAL`: in WAL mode a commit
 * survives a killed process (not a power cut), and monitors write a run every few milliseconds at
 * scale, where FULL's sync per commit would be the bottleneck. node:sqlite is synchronous, so a
 * transaction is made exclusive by queueing every call behind the one open.
 */
export async function openSqliteSql(location: Extract<DatabaseLocation, { kind: 'sqlite' }>, dataDir: string) {
  const { openSqliteDatabase } = await import('../storage/sqlite-database.ts');
  return sqliteSql(openSqliteDatabase(databaseFile(location, dataDir)));
}

export function sqliteSql(db: DatabaseSync): Sql {
  db.exec('PRAGMA synchronous = NORMAL');
  const statements = new Map<string, StatementSync>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  const direct = {
    all: async (text: string, values: readonly unknown[] = []) => prepared(text).all(...(values as never[])) as Row[],
    run: async (text: string, values: readonly unknown[] = []) =>
      Number(prepared(text).run(...(values as never[])).changes),
  };
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };
  const sql: Sql = {
    all: (text, values) => exclusive(() => direct.all(text, values)),
    run: (text, values) => exclusive(() => direct.run(text, values)),
    transaction: (work) =>
      exclusive(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work({ ...direct, transaction: () => Promise.reject(new Error('nested')), close });
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw error;
        }
      }),
    close,
  };
  async function close() {
    await queue;
    if (db.isOpen) db.close();
  }
  return sql;
}

const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

export async function openPostgresSql(url: string, onError: (error: Error) => void): Promise<Sql> {
  const { openPostgresConnection } = await import('../storage/postgres-connection.ts');
  const connection = await openPostgresConnection(url, {
    onError,
    waitForServer: true,
    notifications: false,
    poolSize: 5,
  });
  const counted = (text: string) => (/\bRETURNING\b/i.test(text) ? text : `${text} RETURNING 1 AS changed`);
  return {
    all: (text, values = []) => connection.query(numbered(text), [...values]),
    run: async (text, values = []) => (await connection.query(numbered(counted(text)), [...values])).length,
    transaction: (work) =>
      connection.transaction((client) => {
        const inside: Sql = {
          all: async (text, values = []) => (await client.query(numbered(text), [...values])).rows,
          run: async (text, values = []) => (await client.query(numbered(counted(text)), [...values])).rows.length,
          transaction: () => Promise.reject(new Error('nested')),
          close: async () => {},
        };
        return work(inside);
      }),
    close: () => connection.close(),
  };
}

/** The monitors' Sql over the database the accounts use (DATABASE_URL, else DATA_DIR's SQLite file). */
export function openMonitorSql(
  database: DatabaseLocation,
  dataDir: string,
  onError: (error: Error) => void,
): Promise<Sql> {
  return database.kind === 'postgres' ? openPostgresSql(database.url, onError) : openSqliteSql(database, dataDir);
}
