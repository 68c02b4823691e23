import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { StorageUnavailableError } from '../../src/storage/errors.ts';
import type { AccountRepository } from '../../src/storage/repository.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { guardAgainstCorruption, QUICK_CHECK_MAX_BYTES } from '../../src/storage/sqlite-integrity.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';
import { serviceArguments } from '../support/start-command.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'netinfo-integrity-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** A database as the service makes it: an account, signed up, with an API key. */
async function serviceDatabase(): Promise<{ dataDir: string; file: string; key: string }> {
  const dataDir = mkdtempSync(path.join(scratch, 'data-'));
  const { app } = await buildAccountsApp({ DATA_DIR: dataDir });
  const browser = sessionClient(app);
  assert.equal((await browser.signup('ann@example.com', PASSWORD)).statusCode, 201);
  const created = await browser.createKey('laptop');
  assert.equal(created.statusCode, 201);
  await app.close();
  return { dataDir, file: path.join(dataDir, 'netinfo.db'), key: created.json().key };
}

/**
 * Overwrites pages 10 to 13 (numbered from 1) with junk, as the hostile run did: in the service's
 * schema they are the api_keys table and its indexes. The WAL is checkpointed first, so the pages
 * in the main file are the ones read.
 */
function overwritePages(file: string): void {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
  const roots = db.prepare("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'api_keys'").all();
  db.close();
  assert.deepEqual(
    roots.map((row) => Number(row.rootpage)).sort((a, b) => a - b),
    [10, 11, 12, 13],
  );
  const fd = openSync(file, 'r+');
  for (let page = 10; page <= 13; page++)
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
}

/** The service started as an operator would, on `dataDir`; resolves when it exits (or is killed after 20 s). */
function startService(
  dataDir: string,
): Promise<{ code: number | null | 'still running'; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, serviceArguments(), {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...NO_DOWNLOADS_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DNS_SERVERS: '127.0.0.1:9',
      // Parallel tests would fight over the default 9464.
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'still running', stdout, stderr });
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('a damaged database (pages 10-13 overwritten) is refused at start with one line, not served with 500s', async () => {
  const { dataDir, file } = await serviceDatabase();
  overwritePages(file);
  assert.throws(
    () => openSqliteRepository(file),
    new RegExp(
      `^Error: the account database ${file} is damaged \\(PRAGMA quick_check: .*\\); restore it from a backup`,
    ),
  );
  const { code, stdout, stderr } = await startService(dataDir);
  assert.equal(code, 1, stdout + stderr);
  assert.doesNotMatch(stdout, /listening/);
  assert.match(
    stderr,
    new RegExp(
      `^netinfo could not start: the account database ${file} is damaged \\(.+\\); restore it from a backup[^\\n]*\\n$`,
    ),
  );
});

test('an empty (0-byte) netinfo.db is refused, saying what to do, and left as it was', async () => {
  const dataDir = mkdtempSync(path.join(scratch, 'empty-'));
  const file = path.join(dataDir, 'netinfo.db');
  writeFileSync(file, '');
  assert.throws(() => openSqliteRepository(file), /is empty \(0 bytes\).*Restore it from a backup, or move it away/);
  const { code, stderr } = await startService(dataDir);
  assert.equal(code, 1, stderr);
  assert.match(
    stderr,
    new RegExp(`^netinfo could not start: the account database ${file} is empty \\(0 bytes\\)[^\\n]*\\n$`),
  );
  assert.equal(statSync(file).size, 0, 'not made into a new, empty database');
});

test('damage found after start: keyed calls answer 502, /readyz says degraded, requests without a key go on', async () => {
  const { app, dataDir, close } = await buildAccountsApp();
  try {
    const browser = sessionClient(app);
    await browser.signup('ann@example.com', PASSWORD);
    const { key } = (await browser.createKey('laptop')).json();
    const keyed = () => app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });
    assert.equal((await keyed()).statusCode, 200);
    assert.equal((await app.inject({ url: '/readyz' })).json().checks.accounts.state, 'ready');

    overwritePages(path.join(dataDir, 'netinfo.db'));
    // Another process writes (the admin command, say): the service's connection drops its page
    // cache and its key cache, and reads the damaged pages from the file.
    const other = new DatabaseSync(path.join(dataDir, 'netinfo.db'));
    other.exec("UPDATE accounts SET plan = 'free'");
    other.close();

    const refused = await keyed();
    assert.equal(refused.statusCode, 502);
    assert.match(refused.json().error, /account database is unavailable/);
    const ready = await app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'degraded');
    assert.match(ready.json().checks.accounts.detail, /damaged .*502 until it is restored from a backup/);
    assert.equal((await keyed()).statusCode, 502, 'and again: its cached owner was dropped on the other write');
    // Once damage is found, nothing more is read or written: the account API (whose own pages are
    // intact) answers 502 too.
    assert.equal((await browser.account()).statusCode, 502);
    assert.equal((await app.inject({ url: '/api/v1/ipv6' })).statusCode, 200, 'no key: served');
  } finally {
    await close();
  }
});

test('the guard: only SQLITE_CORRUPT and SQLITE_NOTADB count as damage, and once seen every call is refused', async () => {
  let failWith: Error | undefined;
  const calls: string[] = [];
  const base = {
    async findAccountById(id: string) {
      calls.push(id);
      if (failWith) throw failWith;
      return undefined;
    },
    changedElsewhere: () => false,
    unavailable: () => undefined,
    async close() {},
  } as unknown as AccountRepository;
  const repository = guardAgainstCorruption(base, () => Date.parse('2026-11-25T00:00:00Z'));
  failWith = Object.assign(new Error('UNIQUE constraint failed'), { errcode: 2067 });
  await assert.rejects(repository.findAccountById('a'), /UNIQUE constraint failed/);
  assert.equal(repository.unavailable(), undefined, 'a constraint is not damage');
  failWith = Object.assign(new Error('file is not a database'), { errcode: 26 });
  await assert.rejects(repository.findAccountById('b'), StorageUnavailableError);
  assert.match(String(repository.unavailable()), /^account database file damaged \(found 2026-11-25T00:00:00.000Z\)/);
  failWith = undefined;
  await assert.rejects(repository.findAccountById('c'), StorageUnavailableError);
  assert.equal(repository.changedElsewhere(), false, 'keys cached before stay usable, as in a PostgreSQL outage');
  assert.deepEqual(calls, ['a', 'b'], 'not asked again once damaged');
});

test(`the check at start is skipped, with a warning, above ${QUICK_CHECK_MAX_BYTES / 2 ** 20} MiB`, () => {
  const file = path.join(mkdtempSync(path.join(scratch, 'large-')), 'netinfo.db');
  openSqliteRepository(file).close();
  // Made large in an instant (a sparse extension): SQLite reads only the pages its header counts.
  truncateSync(file, QUICK_CHECK_MAX_BYTES + 1);
  const warnings: string[] = [];
  openSqliteRepository(file, { onWarning: (message) => warnings.push(message) }).close();
  assert.deepEqual(warnings, [
    'the account database is 64 MiB: its integrity check at start (PRAGMA quick_check) runs only up to 64 MiB and was skipped; damage will be noticed when a query meets it',
  ]);
  truncateSync(file, QUICK_CHECK_MAX_BYTES);
  openSqliteRepository(file, { onWarning: (message) => warnings.push(message) }).close();
  assert.equal(warnings.length, 1, 'checked up to the limit');
});
