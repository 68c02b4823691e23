import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres-server.ts';

if (postgresSkipReason) console.log(`# PostgreSQL startup tests skipped: ${postgresSkipReason}`);

describe('starting while PostgreSQL is down', { skip: postgresSkipReason }, () => {
  let postgres: TestPostgres | undefined;
  after(async () => {
    await postgres?.stop();
  });

  it('serves requests without a key, reports degraded, and takes up the accounts once PostgreSQL is back', async () => {
    postgres = await startPostgres();
    // Stopped now, back in 2 s: the start below finds nothing listening.
    const back = postgres.restart(2000);
    const app = await buildTestApp({ DATABASE_URL: postgres.url, MASTER_KEY: randomBytes(32).toString('base64') });
    try {
      const down = (await app.inject({ url: '/readyz' })).json();
      assert.equal(down.status, 'degraded');
      assert.equal(down.checks.accounts.state, 'degraded');
      assert.match(down.checks.accounts.detail, /^account database not reached since .*; retrying$/);
      assert.doesNotMatch(down.checks.accounts.detail, /127\.0\.0\.1/, 'the database address is not shown publicly');

      const open = await app.inject({ url: '/api/v1/ipv6', remoteAddress: '198.51.100.30' });
      assert.equal(open.statusCode, 200);
      const keyed = await app.inject({
        url: '/api/v1/ipv6',
        headers: { authorization: `Bearer ${generateApiKey()}` },
        remoteAddress: '198.51.100.30',
      });
      assert.equal(keyed.statusCode, 502);
      assert.match(keyed.json().error, /account database is unavailable/);
      const session = sessionClient(app);
      assert.equal((await session.signup('early@example.com', PASSWORD)).statusCode, 502);

      await back;
      // Retries after 1 s (still down), then 2 s later: ready within a few seconds of its return.
      let state = 'degraded';
      for (let i = 0; i < 100 && state !== 'ready'; i++) {
        await sleep(100);
        state = (await app.inject({ url: '/readyz' })).json().checks.accounts.state;
      }
      assert.equal(state, 'ready', 'migrated and listening once PostgreSQL is back');
      assert.equal((await session.signup('early@example.com', PASSWORD)).statusCode, 201);
      const created = await session.createKey('after the outage');
      assert.equal(created.statusCode, 201);
      const withKey = await app.inject({
        url: '/api/v1/ipv6',
        headers: { authorization: `Bearer ${created.json().key}` },
        remoteAddress: '198.51.100.30',
      });
      assert.equal(withKey.statusCode, 200);
      assert.equal(withKey.headers['x-ratelimit-limit'], '1000');
    } finally {
      await app.close();
    }
  });
});
