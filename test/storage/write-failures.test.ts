import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { StorageFullError, StorageUnavailableError } from '../../src/storage/errors.ts';
import type { AccountRepository } from '../../src/storage/repository.ts';
import { sqliteRepository } from '../../src/storage/sqlite.ts';
import { openSqliteDatabase } from '../../src/storage/sqlite-database.ts';
import { isStorageFull, reportingFullStorage } from '../../src/storage/write-failures.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres-server.ts';

if (postgresSkipReason) console.log(`# PostgreSQL disk_full test skipped: ${postgresSkipReason}`);

// Account writes refused for lack of space answered 500 while /readyz said ready (issue 28).

describe('account writes refused for lack of space', () => {
  it('a full SQLite database (PRAGMA max_page_count): sign-up answers 503 saying accounts cannot be stored, /readyz is degraded naming it, and both recover once there is room', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-full-'));
    const db = openSqliteDatabase(path.join(dir, 'accounts.db'));
    const { app, close } = await buildAccountsApp({}, { accountRepository: sqliteRepository(db) });
    try {
      const browser = sessionClient(app);
      assert.equal((await browser.signup('first@example.com', PASSWORD)).statusCode, 201);
      const readyz = async () => (await app.inject({ url: '/readyz' })).json();
      assert.equal((await readyz()).checks.accounts.state, 'ready');

      // No page may be added: SQLite answers SQLITE_FULL ("database or disk is full") for real.
      const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
      db.exec(`PRAGMA max_page_count = ${pages}`);
      let refused: Awaited<ReturnType<typeof browser.signup>> | undefined;
      for (let i = 0; i < 500 && refused === undefined; i++) {
        const answer = await sessionClient(app, { ip: `192.0.2.${(i % 250) + 1}` }).signup(
          `user${i}-${'x'.repeat(50)}@example.com`,
          PASSWORD,
        );
        if (answer.statusCode !== 201) refused = answer;
      }
      assert.ok(refused, 'the database filled up');
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json().error.includes('cannot store accounts'), true, refused.body);
      const degraded = await readyz();
      assert.equal(degraded.status, 'degraded');
      assert.equal(degraded.checks.accounts.state, 'degraded');
      assert.match(degraded.checks.accounts.detail, /account database full/);

      db.exec('PRAGMA max_page_count = 1073741823');
      assert.equal(
        (await sessionClient(app, { ip: '198.51.100.1' }).signup('later@example.com', PASSWORD)).statusCode,
        201,
      );
      assert.equal((await readyz()).checks.accounts.state, 'ready');
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: disk_full (53100) and out_of_memory (53200) under the connection error are "full"; an outage is not', async () => {
    const pgError = (code: string) =>
      new StorageUnavailableError(Object.assign(new Error('could not extend file'), { code }));
    assert.equal(isStorageFull(pgError('53100')), true);
    assert.equal(isStorageFull(pgError('53200')), true);
    assert.equal(isStorageFull(pgError('53300')), false);
    assert.equal(isStorageFull(pgError('ECONNREFUSED')), false);

    const failing = { createAccount: () => Promise.reject(pgError('53100')), unavailable: () => undefined };
    const repository = reportingFullStorage(failing as unknown as AccountRepository, () => 0);
    await assert.rejects(repository.createAccount({} as never), StorageFullError);
    assert.match(repository.unavailable() ?? '', /account database full/);
  });

  describe('PostgreSQL', { skip: postgresSkipReason }, () => {
    let server: TestPostgres;
    before(async () => {
      server = await startPostgres();
    });
    after(async () => {
      await server?.stop();
    });

    it('a write refused with disk_full (53100, raised by the server) answers 503 and degrades /readyz, until a write succeeds', async () => {
      const { app, close } = await buildAccountsApp({ DATABASE_URL: server.url });
      const admin = new pg.Client(server.url);
      await admin.connect();
      try {
        // A real error from the server, with the code a full disk gives, on every new account.
        await admin.query(`CREATE FUNCTION netinfo_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
        await admin.query(
          'CREATE TRIGGER netinfo_test_disk_full BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION netinfo_test_disk_full()',
        );
        const refused = await sessionClient(app).signup('pg@example.com', PASSWORD);
        assert.equal(refused.statusCode, 503, refused.body);
        assert.match(refused.json().error, /cannot store accounts/);
        const readyz = (await app.inject({ url: '/readyz' })).json();
        assert.equal(readyz.checks.accounts.state, 'degraded');
        assert.match(readyz.checks.accounts.detail, /account database full/);

        await admin.query('DROP TRIGGER netinfo_test_disk_full ON accounts');
        assert.equal((await sessionClient(app).signup('pg@example.com', PASSWORD)).statusCode, 201);
        assert.equal((await app.inject({ url: '/readyz' })).json().checks.accounts.state, 'ready');
      } finally {
        await admin.end();
        await close();
      }
    });
  });
});
