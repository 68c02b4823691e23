import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRateLimiter } from '../../src/limits/limiter.ts';
import { createMemoryRateLimitStore } from '../../src/limits/memory-store.ts';
import { DEFAULT_TIER_LIMITS } from '../../src/limits/tiers.ts';
import { readUsage } from '../../src/limits/usage.ts';
import { manualClock } from '../support/app.ts';

test('usage is read from the limiter counters without counting', async () => {
  const clock = manualClock('2026-04-01T10:20:00Z');
  const store = createMemoryRateLimitStore(clock.now);
  const limiter = createRateLimiter({ store, limits: DEFAULT_TIER_LIMITS, now: clock.now });
  for (let i = 0; i < 3; i++) await limiter.check('free', 'account:a');
  await limiter.check('free', 'account:b');
  const expected = {
    hourly: { used: 3, limit: 1000, reset: Date.parse('2026-04-01T11:00:00Z') / 1000 },
    daily: { used: 3, limit: 10_000, reset: Date.parse('2026-04-02T00:00:00Z') / 1000 },
  };
  assert.deepEqual(await readUsage(store, DEFAULT_TIER_LIMITS, 'free', 'account:a', clock.now()), expected);
  assert.deepEqual(
    await readUsage(store, DEFAULT_TIER_LIMITS, 'free', 'account:a', clock.now()),
    expected,
    'reading twice counts nothing',
  );
  assert.equal((await limiter.check('free', 'account:a')).remaining, 996);
  clock.set('2026-04-01T11:00:00Z');
  const nextHour = await readUsage(store, DEFAULT_TIER_LIMITS, 'free', 'account:a', clock.now());
  assert.equal(nextHour.hourly.used, 0);
  assert.equal(nextHour.daily.used, 4);
});

test('the Redis store also reads a counter asked for with limit 0 (the usage contract)', async (t) => {
  const { redisSkipReason, startRedis } = await import('../support/redis-server.ts');
  if (redisSkipReason) {
    t.skip(`Redis: ${redisSkipReason}`);
    return;
  }
  const { Redis } = await import('ioredis');
  const { createRedisRateLimitStore } = await import('../../src/limits/redis-store.ts');
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    const store = createRedisRateLimitStore(client, 'usage:');
    const limits = DEFAULT_TIER_LIMITS;
    const time = Date.now();
    const limiter = createRateLimiter({ store, limits, now: () => time });
    for (let i = 0; i < 2; i++) await limiter.check('pro', 'account:r');
    const first = await readUsage(store, limits, 'pro', 'account:r', time);
    const second = await readUsage(store, limits, 'pro', 'account:r', time);
    assert.equal(first.hourly.used, 2);
    assert.equal(first.daily.used, 2);
    assert.deepEqual(second, first);
  } finally {
    client.disconnect();
    await redis.stop();
  }
});
