import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisOwnerChanges } from '../../src/scale/redis-owner-changes.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';

if (redisSkipReason) console.log(`# owner-changes tests skipped: ${redisSkipReason}`);

describe('the shared version of key owners in Redis', { skip: redisSkipReason }, () => {
  let redis: TestRedis;
  let client: Redis;
  before(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  after(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it('every announcement gives a version never seen before, even after Redis lost its data', async () => {
    const changes = createRedisOwnerChanges(client);
    await changes.announce();
    const first = await changes.version();
    // What an instance saw before Redis restarted without persistence (as it runs here).
    await client.flushall();
    assert.notEqual(await changes.version(), first, 'a lost version is a change too');
    await changes.announce();
    const second = await changes.version();
    assert.notEqual(second, first, 'a counter starting again from 0 would come back to the same number');
    assert.notEqual(second, null);
  });
});
