import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { StorageUnavailableError } from '../../src/storage/errors.ts';
import { SCHEMA_VERSION } from '../../src/storage/migrations.ts';
import { openPostgresRepository } from '../../src/storage/postgres.ts';
import { migratePostgres } from '../../src/storage/postgres-connection.ts';
import { freePort } from '../support/free-port.ts';
import { freshDatabase, postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres-server.ts';
import { repositoryContract } from './repository-contract.ts';

if (postgresSkipReason) console.log(`# PostgreSQL tests skipped: ${postgresSkipReason}`);

let server: TestPostgres | undefined;
/** A fresh database per test on one throwaway cluster. */
async function freshDatabaseUrl(): Promise<string> {
  if (!server) throw new Error('no server');
  return freshDatabase(server);
}

if (!postgresSkipReason) {
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server?.stop();
  });

  repositoryContract('PostgreSQL', async () => {
    const url = await freshDatabaseUrl();
    return { repository: await openPostgresRepository(url), cleanup: async () => {} };
  });

  test('PostgreSQL: migrations run once even when two instances start together', async () => {
    const url = await freshDatabaseUrl();
    const first = new pg.Pool({ connectionString: url });
    const pools = [first, new pg.Pool({ connectionString: url })];
    const versions = await Promise.all(pools.map((pool) => migratePostgres(pool)));
    assert.deepEqual(versions, [SCHEMA_VERSION, SCHEMA_VERSION]);
    const { rows } = await first.query('SELECT version FROM schema_migrations ORDER BY version');
    assert.equal(rows.length, SCHEMA_VERSION);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  test('PostgreSQL: a plan change through one instance is announced to the others', async () => {
    const url = await freshDatabaseUrl();
    const [a, b] = await Promise.all([openPostgresRepository(url), openPostgresRepository(url)]);
    try {
      assert.equal(b.changedElsewhere(), false);
      await a.createAccount({
        id: 'acct-notify-0001',
        email: 'n@example.com',
        passwordHash: 'x',
        plan: 'free',
        createdAt: 1,
        disabledAt: null,
      });
      await a.setPlan('acct-notify-0001', 'pro');
      for (let i = 0; i < 50 && !b.changedElsewhere(); i++) {
        if (i === 49) assert.fail('instance b never heard of the change');
        await sleep(10);
      }
      assert.equal(b.changedElsewhere(), false, 'the flag is cleared once read');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('PostgreSQL: a revocation is announced to the others; a refused one is not', async () => {
    const url = await freshDatabaseUrl();
    const [a, b] = await Promise.all([openPostgresRepository(url), openPostgresRepository(url)]);
    const heard = async () => {
      for (let i = 0; i < 50; i++) {
        if (b.changedElsewhere()) return true;
        await sleep(10);
      }
      return false;
    };
    try {
      await a.createAccount({
        id: 'acct-revoke-0001',
        email: 'r@example.com',
        passwordHash: 'x',
        plan: 'free',
        createdAt: 1,
        disabledAt: null,
      });
      await a.createKeyWithinQuota(
        {
          id: 'key-revoke-0001',
          accountId: 'acct-revoke-0001',
          name: 'k',
          displayPrefix: 'nk_abcdef',
          lookupHash: 'hash-revoke-0001',
          secret: { keyVersion: 1, nonce: 'bm9uY2U=', ciphertext: 'Y2lwaGVy', tag: 'dGFn' },
          createdAt: 2,
          lastUsedAt: null,
          revokedAt: null,
        },
        5,
      );
      assert.equal(await a.revokeKey('acct-revoke-0001', 'key-revoke-0001', 3), true);
      assert.equal(await heard(), true, 'instance b heard of the revocation');
      assert.equal(await a.revokeKey('acct-revoke-0001', 'key-revoke-0001', 4), false, 'already revoked');
      assert.equal(await heard(), false, 'nothing changed, nothing announced');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('PostgreSQL: waiting for the server covers an outage, not a configuration the server refuses', async () => {
    if (!server) throw new Error('no server');
    const unknownDatabase = server.url.replace(/\/postgres$/, '/netinfo_no_such_database');
    await assert.rejects(
      openPostgresRepository(unknownDatabase, { waitForServer: true }),
      /database "netinfo_no_such_database" does not exist/,
    );
    const nobody = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    // The admin command does not wait: nothing listening is an error at once.
    await assert.rejects(openPostgresRepository(nobody), /ECONNREFUSED/);

    const errors: Error[] = [];
    const waiting = await openPostgresRepository(nobody, {
      waitForServer: true,
      retryFirstMs: 50,
      onError: (error) => errors.push(error),
    });
    try {
      assert.match(waiting.unavailable() ?? '', /^account database not reached since /);
      await assert.rejects(waiting.findAccountByEmail('x@example.com'), StorageUnavailableError);
      await sleep(400);
      // 50, 100 and 200 ms later: three retries, each reported, and no more than that.
      assert.ok(errors.length >= 3 && errors.length <= 6, `${errors.length} errors`);
    } finally {
      await waiting.close();
    }
    const reported = errors.length;
    await sleep(300);
    assert.equal(errors.length, reported, 'no retry after close');
  });
}
