import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Resolver } from '../../src/dns/resolver.ts';
import { unitsForQuestions } from '../../src/limits/upstream-cost.ts';
import { buildTestApp } from '../support/app.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';

/** Answers every question with no records, after counting it. */
function emptyResolver(): Resolver & { asked: number } {
  const resolver = {
    asked: 0,
    async query() {
      resolver.asked += 1;
      return { rcode: 'NOERROR' as const, answers: [], authority: [], server: 'empty', fromCache: false };
    },
    resolveAddresses: async () => [],
    reverse: async () => null,
  };
  return resolver;
}

describe('unitsForQuestions', () => {
  it('is one request per 10 questions, rounded up, at least 1', () => {
    assert.deepEqual([0, 1, 10, 11, 16, 20, 21, 96, 100].map(unitsForQuestions), [1, 1, 1, 2, 2, 2, 3, 10, 10]);
  });
});

describe('the charge after the call, with Redis (REDIS_URL)', { skip: redisSkipReason, timeout: 60_000 }, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  it('goes through the shared store: another instance sees what a /blacklist call cost', async () => {
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMITS: 'public=100/500',
      DNSBL_ZONES: Array.from({ length: 15 }, (_, index) => `l${index}=l${index}.test`).join(','),
    };
    const resolver = emptyResolver();
    const one = await buildTestApp(env, { resolver });
    const two = await buildTestApp(env, { resolver: emptyResolver() });
    try {
      // Fifteen lists: 30 questions, 3 requests.
      const blacklist = await one.inject({ url: '/api/v1/blacklist?ip=192.0.2.1', remoteAddress: '198.51.100.9' });
      assert.equal(blacklist.statusCode, 200);
      assert.equal(resolver.asked, 30);
      assert.equal(blacklist.headers['x-ratelimit-remaining'], '97');
      const elsewhere = await two.inject({ url: '/api/v1/ipv6', remoteAddress: '198.51.100.9' });
      assert.equal(elsewhere.headers['x-ratelimit-remaining'], '96');
    } finally {
      await one.close();
      await two.close();
    }
  });
});
