import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../../src/config.ts';
import { databaseFile, parseDatabaseUrl } from '../../src/storage/config.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/storage/migrations.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { openSqliteDatabase } from '../../src/storage/sqlite-database.ts';
import { repositoryContract } from './repository-contract.ts';

const childScript = path.join(import.meta.dirname, 'sqlite-child.ts');

async function temporaryDirectory(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-sqlite-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

repositoryContract('SQLite', async () => {
  const { dir, cleanup } = await temporaryDirectory();
  return { repository: openSqliteRepository(path.join(dir, 'netinfo.db')), cleanup };
});

function runChild(args: string[], onLine?: (line: string, child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, [childScript, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    onLine?.(output, child);
  });
  return once(child, 'exit').then(() => output.trim());
}

test('migrations: versions count up from 1, are recorded, and run once', async () => {
  assert.deepEqual(
    MIGRATIONS.map((migration) => migration.version),
    Array.from({ length: MIGRATIONS.length }, (_, index) => index + 1),
  );
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'netinfo.db');
  (await openSqliteRepository(file)).close();
  (await openSqliteRepository(file)).close(); // a second start finds nothing to do
  const db = new DatabaseSync(file);
  const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
  assert.deepEqual(
    rows.map((row) => ({ ...row })),
    MIGRATIONS.map(({ version, name }) => ({ version, name })),
  );
  db.close();
  await cleanup();
});

test('a database newer than the code is refused with a message', async () => {
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'netinfo.db');
  await openSqliteRepository(file).close();
  const db = new DatabaseSync(file);
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
    SCHEMA_VERSION + 1,
    'from the future',
    0,
  );
  db.close();
  assert.throws(() => openSqliteRepository(file), /schema version \d+, newer than this netinfo knows/);
  await cleanup();
});

test('WAL, synchronous FULL, foreign keys on, and the file is private (0600)', async () => {
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'sub', 'netinfo.db');
  const db = openSqliteDatabase(file);
  assert.equal((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
  assert.equal((db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous, 2, 'FULL');
  assert.equal((db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys, 1);
  db.close();
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  await cleanup();
});

test('several workers opening a fresh database at the same moment all succeed (WORKERS > 1)', async () => {
  // Worker threads, as WORKERS runs them: each has its own SQLite connection, and a barrier makes them
  // open each file together. Switching a new file to WAL used to fail at once for about one opener
  // in thirty ("database is locked"). And no opener may find the new file empty: an empty file is
  // refused as a database whose contents were lost (sqlite-integrity.test.ts).
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-open-race-'));
  try {
    const workers = 3;
    const files = Array.from({ length: 60 }, (_, index) => path.join(dir, `race-${index}.db`));
    const gates = new Int32Array(new SharedArrayBuffer(4 * files.length));
    const errors = await Promise.all(
      Array.from({ length: workers }, async () => {
        const worker = new Worker(new URL('./sqlite-open-worker.ts', import.meta.url), {
          workerData: { files, gates, workers },
        });
        const [reported] = (await once(worker, 'message')) as [string[]];
        return reported;
      }),
    );
    assert.deepEqual(errors.flat(), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a write that returned survives the process being killed at once (SIGKILL)', async () => {
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'netinfo.db');
  await runChild(['write-then-wait', file, 'durable@example.com'], (output, child) => {
    if (output.includes('written')) child.kill('SIGKILL');
  });
  const repository = openSqliteRepository(file);
  assert.equal((await repository.findAccountByEmail('durable@example.com'))?.id, 'durable-account-1');
  await repository.close();
  await cleanup();
});

test('three processes creating keys at once: exactly the quota succeeds', async () => {
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'netinfo.db');
  const repository = openSqliteRepository(file);
  await repository.createAccount({
    id: 'quota-account-01',
    email: 'q@example.com',
    passwordHash: 'x',
    plan: 'free',
    createdAt: 1,
    disabledAt: null,
  });
  const outputs = await Promise.all([1, 2, 3].map(() => runChild(['create-keys', file, 'quota-account-01', '4', '5'])));
  assert.equal(
    outputs.reduce((sum, output) => sum + Number(output), 0),
    5,
    `created per process: ${outputs.join(', ')}`,
  );
  assert.equal(await repository.countActiveKeys('quota-account-01'), 5);
  await repository.close();
  await cleanup();
});

test("changedElsewhere: true after another connection's commit, not after our own", async () => {
  const { dir, cleanup } = await temporaryDirectory();
  const file = path.join(dir, 'netinfo.db');
  const ours = openSqliteRepository(file);
  const theirs = openSqliteRepository(file);
  const account = {
    id: 'a',
    email: 'a@example.com',
    passwordHash: 'x',
    plan: 'free' as const,
    createdAt: 1,
    disabledAt: null,
  };
  assert.equal(ours.changedElsewhere(), false);
  await ours.createAccount(account);
  assert.equal(ours.changedElsewhere(), false, 'our own write');
  await theirs.setPlan('a', 'pro');
  assert.equal(ours.changedElsewhere(), true, "another connection's write");
  assert.equal(ours.changedElsewhere(), false, 'reported once');
  await ours.close();
  await theirs.close();
  await cleanup();
});

test('DATABASE_URL: sqlite paths and postgres URLs accepted, anything else refused without echoing the URL', () => {
  assert.deepEqual(parseDatabaseUrl(undefined), { kind: 'sqlite', file: null });
  assert.deepEqual(parseDatabaseUrl(' '), { kind: 'sqlite', file: null });
  assert.deepEqual(parseDatabaseUrl('sqlite:/var/lib/netinfo/n.db'), { kind: 'sqlite', file: '/var/lib/netinfo/n.db' });
  assert.deepEqual(parseDatabaseUrl('sqlite:///var/lib/n.db'), { kind: 'sqlite', file: '/var/lib/n.db' });
  assert.deepEqual(parseDatabaseUrl('sqlite:data/n.db'), { kind: 'sqlite', file: path.resolve('data/n.db') });
  assert.throws(() => parseDatabaseUrl('sqlite:'), /needs a file path/);
  assert.throws(
    () => parseDatabaseUrl('mysql://root:hunter2@db/x'),
    (error: Error) => {
      assert.match(error.message, /unsupported database "mysql:"/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    },
  );
  assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://app:s3cret@db.internal/netinfo' }).database, {
    kind: 'postgres',
    url: 'postgres://app:s3cret@db.internal/netinfo',
  });
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://app:s3cret@[bad/netinfo' }),
    (error: Error) => {
      assert.match(error.message, /DATABASE_URL: the postgres:\/\/ URL is malformed/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    },
  );
  assert.equal(databaseFile({ kind: 'sqlite', file: null }, '/srv/data'), '/srv/data/netinfo.db');
});
