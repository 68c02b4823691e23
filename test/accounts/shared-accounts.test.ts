import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { announcingOwnerChanges } from '../../src/accounts/owner-changes.ts';
import { createRedisOwnerChanges } from '../../src/scale/redis-owner-changes.ts';
import { openPostgresRepository } from '../../src/storage/postgres.ts';
import { PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres-server.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';

const skip = postgresSkipReason || redisSkipReason;
if (skip) console.log(`# shared accounts tests skipped: ${skip}`);

type App = Awaited<ReturnType<typeof buildTestApp>>;

describe('two instances sharing PostgreSQL and Redis', { skip }, () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let a: App;
  let b: App;
  // Every instance shares the master key, as they must to decrypt and look up each other's keys.
  const masterKey = randomBytes(32).toString('base64');
  const env = () => ({ DATABASE_URL: postgres.url, REDIS_URL: redis.url, MASTER_KEY: masterKey });

  before(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    a = await buildTestApp(env());
    b = await buildTestApp(env());
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
    await postgres?.stop();
  });

  const call = (app: App, key: string) =>
    app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` }, remoteAddress: '198.51.100.20' });

  it('a key made on one instance works on the other; revoked on one, it is refused by the other at once', async () => {
    const session = sessionClient(a);
    assert.equal((await session.signup('shared@example.com', PASSWORD)).statusCode, 201);
    const created = await session.createKey('laptop');
    assert.equal(created.statusCode, 201);
    const { key, id } = created.json();

    const onB = await call(b, key);
    assert.equal(onB.statusCode, 200);
    assert.equal(onB.headers['x-ratelimit-limit'], '1000');

    assert.equal((await session.revokeKey(id)).statusCode, 204);
    assert.equal((await call(b, key)).statusCode, 401);
    assert.equal((await call(a, key)).statusCode, 401);
  });

  it('a plan change reaches every instance on the next request', async () => {
    const session = sessionClient(b);
    await session.signup('planned@example.com', PASSWORD);
    const { key } = (await session.createKey('ci')).json();
    assert.equal((await call(a, key)).headers['x-ratelimit-limit'], '1000');
    // As `npm run admin -- plan <email> pro` does with REDIS_URL set: store, then announce.
    const redisClient = new Redis(redis.url);
    const admin = announcingOwnerChanges(
      await openPostgresRepository(postgres.url),
      createRedisOwnerChanges(redisClient),
    );
    try {
      const account = (await admin.listAccounts()).find((entry) => entry.email === 'planned@example.com');
      assert.ok(account);
      await admin.setPlan(account.id, 'pro');
    } finally {
      await admin.close();
      redisClient.disconnect();
    }
    assert.equal((await call(a, key)).headers['x-ratelimit-limit'], '10000');
    assert.equal((await call(b, key)).headers['x-ratelimit-limit'], '10000');
  });

  it('after a PostgreSQL restart, changes announced by NOTIFY reach an instance again', async () => {
    // An instance without Redis hears of changes only through LISTEN, which the restart breaks.
    const c = await buildTestApp({ DATABASE_URL: postgres.url, MASTER_KEY: masterKey });
    try {
      const session = sessionClient(a);
      await session.signup('restart@example.com', PASSWORD);
      const { key, id } = (await session.createKey('restart')).json();
      assert.equal((await call(c, key)).statusCode, 200, 'verified, and now cached on c');
      // Down for longer than the first retry (1 s): that one fails, the next ones must follow.
      await postgres.restart(2500);
      await new Promise((resolve) => setTimeout(resolve, 5000));
      // Verified again after the restart (c drops its cache when LISTEN is taken up again), so only a
      // NOTIFY can tell c of what follows.
      assert.equal((await call(c, key)).statusCode, 200);
      const admin = await openPostgresRepository(postgres.url);
      try {
        const account = (await admin.listAccounts()).find((entry) => entry.email === 'restart@example.com');
        assert.ok(account);
        assert.equal(await admin.revokeKey(account.id, id, Date.now()), true);
      } finally {
        await admin.close();
      }
      assert.equal((await call(c, key)).statusCode, 401, 'the revocation was heard');
    } finally {
      await c.close();
    }
  });

  it('with PostgreSQL down, keyed calls answer 502 unless verified before, and public calls keep working', async () => {
    const session = sessionClient(a);
    await session.signup('outage@example.com', PASSWORD);
    const { key } = (await session.createKey('outage')).json();
    const { key: used } = (await session.createKey('used before')).json();
    // A fresh instance: its LISTEN connection is up (whatever earlier tests did to b's).
    const d = await buildTestApp(env());
    try {
      assert.equal((await call(d, used)).statusCode, 200);
      await postgres.stop();
      // Time for d to notice that its LISTEN connection is gone.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await call(d, used)).statusCode, 200, 'a key verified before the outage stays usable');
      const readiness = (await d.inject({ url: '/readyz' })).json();
      assert.equal(readiness.status, 'degraded');
      assert.match(readiness.checks.accounts.detail, /^account database change notifications lost since /);
    } finally {
      await d.close();
    }
    const keyed = await call(b, key);
    assert.equal(keyed.statusCode, 502);
    assert.match(keyed.json().error, /account database is unavailable/);
    const open = await b.inject({ url: '/api/v1/ipv6', remoteAddress: '198.51.100.21' });
    assert.equal(open.statusCode, 200);
  });
});
