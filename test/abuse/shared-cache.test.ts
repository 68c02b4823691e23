import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp } from '../support/app.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';
import { type FakeRegistries, startFakeRegistries } from './fake-registries.ts';

describe('abuse contacts in the Redis cache (REDIS_URL)', { skip: redisSkipReason, timeout: 60_000 }, () => {
  let redis: TestRedis;
  let fakes: FakeRegistries;
  let apps: Awaited<ReturnType<typeof buildTestApp>>[] = [];

  before(async () => {
    redis = await startRedis();
    fakes = await startFakeRegistries();
    apps = [
      await buildTestApp({ ...fakes.env, REDIS_URL: redis.url }, fakes.deps),
      await buildTestApp({ ...fakes.env, REDIS_URL: redis.url }, fakes.deps),
    ];
  });
  after(async () => {
    for (const app of apps) await app.close();
    await fakes?.close();
    await redis?.stop();
  });

  it('one instance asks the registry, another answers from the shared cache', async () => {
    const [first, second] = apps.map((app) => (url: string) => app.inject({ url }));
    const found = await first?.('/api/v1/abuse?ip=12.34.56.78');
    assert.equal(found?.statusCode, 200);
    assert.equal(found?.json().cached, false);
    const shared = await second?.('/api/v1/abuse?ip=12.34.56.78');
    assert.equal(shared?.statusCode, 200);
    assert.deepEqual(shared?.json(), { ...found?.json(), cached: true });
    const none = await second?.('/api/v1/abuse?ip=41.1.1.1');
    assert.equal(none?.statusCode, 404);
    assert.equal((await first?.('/api/v1/abuse?ip=41.1.1.1'))?.statusCode, 404);
    assert.deepEqual(
      ['/registry/ip/12.34.56.78', '/registry/ip/12.0.0.0/8', '/rdap/ip/41.1.1.1'].map(fakes.asked),
      [1, 1, 1],
    );
  });
});
