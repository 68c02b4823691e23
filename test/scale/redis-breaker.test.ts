import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCircuitBreaker } from '../../src/limits/circuit-breaker.ts';
import { createRedisClient } from '../../src/scale/redis.ts';
import { createRedisOwnerChanges } from '../../src/scale/redis-owner-changes.ts';
import { buildTestApp } from '../support/app.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';

if (redisSkipReason) console.log(`# Redis breaker tests skipped: ${redisSkipReason}`);

describe('the circuit breaker', () => {
  it('opens after the failures in a row, sends calls to the fallback without calling, and closes when a probe answers', async () => {
    let answering = false;
    let probes = 0;
    const breaker = createCircuitBreaker({
      failuresToOpen: 3,
      probeEveryMs: 10,
      probe: async () => {
        probes += 1;
        if (!answering) throw new Error('no answer');
      },
    });
    let primaryCalls = 0;
    const primary = async () => {
      primaryCalls += 1;
      if (!answering) throw new Error('timeout');
      return 'shared';
    };
    try {
      for (let i = 0; i < 3; i++) assert.equal(await breaker.call(primary, () => 'local'), 'local');
      assert.equal(breaker.open, true);
      for (let i = 0; i < 10; i++) assert.equal(await breaker.call(primary, () => 'local'), 'local');
      assert.equal(primaryCalls, 3, 'nothing waits on the backend while the breaker is open');
      answering = true;
      for (let i = 0; i < 100 && breaker.open; i++) await sleep(10);
      assert.equal(breaker.open, false);
      assert.ok(probes >= 1);
      assert.equal(await breaker.call(primary, () => 'local'), 'shared');
    } finally {
      breaker.close();
    }
  });

  it('a success between failures starts the count again', async () => {
    const breaker = createCircuitBreaker({ failuresToOpen: 2, probe: async () => {} });
    breaker.failure(new Error('one'));
    breaker.success();
    breaker.failure(new Error('two'));
    assert.equal(breaker.open, false);
    breaker.failure(new Error('three'));
    assert.equal(breaker.open, true);
    breaker.close();
  });
});

describe('a hung Redis (SIGSTOP)', { skip: redisSkipReason, timeout: 60_000 }, () => {
  const suite = redisForSuite();

  it('costs the command time-out only for the first requests; then they answer at once, /readyz says degraded, and counting returns to Redis after SIGCONT', async () => {
    await suite.client.flushall();
    const app = await buildTestApp({ REDIS_URL: suite.redis.url, RATE_LIMITS: 'public=1000/10000' });
    const remoteAddress = '192.0.2.9';
    const call = async () => {
      const started = performance.now();
      const response = await app.inject({ url: '/api/v1/ipv6', remoteAddress });
      return { status: response.statusCode, ms: performance.now() - started };
    };
    const counted = async () => {
      const [key] = await suite.client.keys('netinfo:rl:hourly:*');
      return key === undefined ? 0 : Number(await suite.client.get(key));
    };
    try {
      assert.equal((await call()).status, 200);
      assert.equal(await counted(), 1);

      suite.redis.freeze();
      try {
        // The first few wait for the command time-out (500 ms) and open the breaker.
        for (let i = 0; i < 3; i++) assert.equal((await call()).status, 200);
        const next = [];
        for (let i = 0; i < 20; i++) next.push(await call());
        assert.deepEqual(
          next.map((answer) => answer.status),
          Array(20).fill(200),
        );
        const slow = next.filter((answer) => answer.ms >= 100).map((answer) => Math.round(answer.ms));
        assert.deepEqual(slow, [], 'none of the next 20 requests waits for the Redis time-out (500 ms)');
        const ready = (await app.inject({ url: '/readyz' })).json();
        assert.equal(ready.status, 'degraded');
        assert.equal(ready.checks.redis.state, 'degraded');
        assert.match(ready.checks.redis.detail, /not answering in time/);
      } finally {
        suite.redis.thaw();
      }

      // The background probe finds Redis again; counts land there again.
      const before = await counted();
      for (let i = 0; i < 50 && (await app.inject({ url: '/readyz' })).json().checks.redis.state !== 'ready'; i++) {
        await call();
        await sleep(100);
      }
      assert.equal((await app.inject({ url: '/readyz' })).json().checks.redis.state, 'ready');
      const afterRecovery = await counted();
      assert.equal((await call()).status, 200);
      assert.equal(await counted(), afterRecovery + 1, 'the request was counted in Redis');
      assert.ok(afterRecovery >= before);
    } finally {
      await app.close();
    }
  });

  it('the key-owner version behind the same breaker: unread (null) at once while open, read again after SIGCONT', async () => {
    const service = createRedisClient(suite.redis.url);
    service.on('error', () => {});
    await new Promise((resolve) => service.once('ready', resolve));
    const breaker = createCircuitBreaker({ probe: () => service.ping(), probeEveryMs: 100 });
    const changes = createRedisOwnerChanges(service, breaker);
    try {
      await changes.announce();
      assert.equal(typeof (await changes.version()), 'string');
      suite.redis.freeze();
      try {
        for (let i = 0; i < 3; i++) assert.equal(await changes.version(), null);
        assert.equal(breaker.open, true);
        const started = performance.now();
        for (let i = 0; i < 20; i++) assert.equal(await changes.version(), null);
        assert.ok(performance.now() - started < 100, 'twenty reads without waiting for Redis');
      } finally {
        suite.redis.thaw();
      }
      for (let i = 0; i < 50 && breaker.open; i++) await sleep(100);
      assert.equal(typeof (await changes.version()), 'string');
    } finally {
      breaker.close();
      service.disconnect();
    }
  });
});
