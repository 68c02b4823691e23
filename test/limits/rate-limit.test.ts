import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiErrors } from '../../src/http/errors.ts';
import { type CallerResolver, publicCaller } from '../../src/limits/caller.ts';
import { createRateLimiter } from '../../src/limits/limiter.ts';
import { createMemoryRateLimitStore } from '../../src/limits/memory-store.ts';
import type { RateLimitStore } from '../../src/limits/store.ts';
import { DEFAULT_TIER_LIMITS, parseRateLimits } from '../../src/limits/tiers.ts';
import { buildTestApp, manualClock } from '../support/app.ts';

const unix = (iso: string) => Date.parse(iso) / 1000;

async function get(app: Awaited<ReturnType<typeof buildTestApp>>, ip: string, method: 'GET' | 'OPTIONS' = 'GET') {
  return app.inject({
    method,
    url: '/api/v1/ipv6',
    remoteAddress: ip,
    headers: method === 'OPTIONS' ? { origin: 'http://example.test', 'access-control-request-method': 'GET' } : {},
  });
}

test('hourly window: 100 per UTC hour, 429 with limit and reset, a new hour starts afresh', async () => {
  const clock = manualClock('2026-01-01T10:59:00Z');
  const app = await buildTestApp({}, { now: clock.now });
  for (let i = 1; i <= 100; i++) {
    const response = await get(app, '203.0.113.1');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-limit'], '100');
    assert.equal(response.headers['x-ratelimit-remaining'], String(100 - i));
    assert.equal(response.headers['x-ratelimit-reset'], String(unix('2026-01-01T11:00:00Z')));
  }
  const refused = await get(app, '203.0.113.1');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['x-ratelimit-remaining'], '0');
  assert.equal(refused.headers['access-control-allow-origin'], '*');
  const body = refused.json();
  assert.equal(body.limit, 100);
  assert.equal(body.reset, unix('2026-01-01T11:00:00Z'));
  assert.match(body.error, /100 requests per hour/);
  assert.equal(refused.headers['retry-after'], '60', 'Retry-After: the seconds until reset (issue 18: was missing)');

  // Another client is not affected.
  assert.equal((await get(app, '203.0.113.2')).statusCode, 200);

  clock.set('2026-01-01T11:00:00Z');
  const next = await get(app, '203.0.113.1');
  assert.equal(next.statusCode, 200);
  assert.equal(next.headers['x-ratelimit-remaining'], '99');
  await app.close();
});

test('daily window binds across hours, and its reset is the next UTC midnight', async () => {
  const clock = manualClock('2026-03-05T00:00:00Z');
  const app = await buildTestApp({ RATE_LIMITS: 'public=10/25' }, { now: clock.now });
  let successes = 0;
  for (let hour = 0; hour < 3; hour++) {
    clock.set(`2026-03-05T0${hour}:10:00Z`);
    for (let i = 0; i < 12; i++) if ((await get(app, '198.51.100.1')).statusCode === 200) successes++;
  }
  // 10 + 10 in the first two hours, then only 5 left of the day's 25.
  assert.equal(successes, 25);
  const refused = await get(app, '198.51.100.1');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.json().limit, 25);
  assert.equal(refused.json().reset, unix('2026-03-06T00:00:00Z'));
  assert.equal(refused.headers['x-ratelimit-reset'], String(unix('2026-03-06T00:00:00Z')));
  assert.equal(refused.headers['x-ratelimit-limit'], '10');
  // 02:10:00 to the next midnight.
  assert.equal(refused.headers['retry-after'], String(21 * 3600 + 50 * 60));

  clock.set('2026-03-06T00:00:01Z');
  assert.equal((await get(app, '198.51.100.1')).statusCode, 200);
  await app.close();
});

test('Remaining and Reset follow whichever window would refuse first', async () => {
  const clock = manualClock('2026-03-05T22:00:00Z');
  const app = await buildTestApp({ RATE_LIMITS: 'public=10/12' }, { now: clock.now });
  const first = await get(app, '192.0.2.50');
  assert.equal(first.headers['x-ratelimit-remaining'], '9'); // hourly: 9 left, daily: 11
  assert.equal(first.headers['x-ratelimit-reset'], String(unix('2026-03-05T23:00:00Z')));
  for (let i = 0; i < 9; i++) await get(app, '192.0.2.50');
  clock.set('2026-03-05T23:00:00Z');
  const later = await get(app, '192.0.2.50');
  assert.equal(later.headers['x-ratelimit-remaining'], '1'); // hourly: 9 left, daily: 1
  assert.equal(later.headers['x-ratelimit-reset'], String(unix('2026-03-06T00:00:00Z')));
  await app.close();
});

test('IPv6 clients are counted per /64; different /64s are separate', async () => {
  const clock = manualClock('2026-01-01T00:00:00Z');
  const app = await buildTestApp({ RATE_LIMITS: 'public=3/100' }, { now: clock.now });
  for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::ffff', '2001:db8:1:2:abcd::9']) {
    assert.equal((await get(app, ip)).statusCode, 200);
  }
  assert.equal((await get(app, '2001:db8:1:2:ffff:ffff:ffff:ffff')).statusCode, 429);
  assert.equal((await get(app, '2001:db8:1:3::1')).statusCode, 200);
  await app.close();
});

test('CORS preflights and refused requests do not count', async () => {
  const clock = manualClock('2026-01-01T00:00:00Z');
  // 4 a day: had the preflights or the refusals counted, the day would be spent by the next hour.
  const app = await buildTestApp({ RATE_LIMITS: 'public=2/4' }, { now: clock.now });
  for (let i = 0; i < 5; i++) assert.equal((await get(app, '192.0.2.1', 'OPTIONS')).statusCode, 204);
  assert.equal((await get(app, '192.0.2.1')).statusCode, 200);
  assert.equal((await get(app, '192.0.2.1')).statusCode, 200);
  for (let i = 0; i < 5; i++) assert.equal((await get(app, '192.0.2.1')).statusCode, 429);
  // The daily counter saw 2, not 12: in the next hour the hourly allowance is back, and the day's.
  clock.advance(3_600_000);
  const response = await get(app, '192.0.2.1');
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-ratelimit-remaining'], '1');
  await app.close();
});

test('errors carry the headers too: 404, 405 and a rejected key', async () => {
  const app = await buildTestApp();
  for (const [expected, response] of [
    [404, await app.inject({ url: '/api/v1/nowhere' })],
    [405, await app.inject({ method: 'DELETE', url: '/api/v1/ipv6' })],
    [401, await app.inject({ url: '/api/v1/ipv6', headers: { authorization: 'Bearer nk_unknown' } })],
  ] as const) {
    assert.equal(response.statusCode, expected);
    assert.ok(response.headers['x-ratelimit-limit'], `headers on ${response.statusCode}`);
    assert.ok(response.headers['x-ratelimit-remaining']);
    assert.ok(response.headers['x-ratelimit-reset']);
  }
  await app.close();
});

test('health endpoints are outside the limit', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=1/1' });
  for (let i = 0; i < 3; i++) {
    const response = await app.inject({ url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-limit'], undefined);
  }
  await app.close();
});

test('the memory store refuses all-or-nothing and forgets expired counters', async () => {
  const clock = manualClock('2026-01-01T00:00:00Z');
  const store = createMemoryRateLimitStore(clock.now);
  const expiresAt = clock.now() + 1000;
  const a = { window: 'w1', subject: 's', limit: 1, expiresAt };
  const b = { window: 'w2', subject: 's', limit: 5, expiresAt };
  assert.deepEqual(await store.consume([a, b]), { allowed: true, counts: [1, 1] });
  assert.deepEqual(await store.consume([a, b]), { allowed: false, counts: [1, 1] });
  // b had room, but the refused call left it alone: its next count is 2, not 3.
  assert.deepEqual(await store.consume([b]), { allowed: true, counts: [2] });
  clock.advance(1000);
  assert.deepEqual(await store.consume([a, b]), { allowed: true, counts: [1, 1] });
});

test("each tier has its limits; a subject's count carries over a plan change", async () => {
  const clock = manualClock('2026-01-01T00:00:00Z');
  const limiter = createRateLimiter({
    store: createMemoryRateLimitStore(clock.now),
    limits: { ...DEFAULT_TIER_LIMITS, free: { hourly: 3, daily: 50 } },
    now: clock.now,
  });
  assert.equal((await limiter.check('public', 'ip:1.2.3.4')).remaining, 99);
  for (let i = 0; i < 3; i++) assert.equal((await limiter.check('free', 'account:1')).allowed, true);
  assert.equal((await limiter.check('free', 'account:1')).allowed, false, 'free: 3 an hour');
  // Upgraded mid-hour: the three used count against the larger allowance, not a fresh one.
  const upgraded = await limiter.check('pro', 'account:1');
  assert.equal(upgraded.limit, 10_000);
  assert.equal(upgraded.remaining, 10_000 - 4);
  // Downgraded again: over the free limit until the hour resets.
  const downgraded = await limiter.check('free', 'account:1');
  assert.equal(downgraded.allowed, false);
  assert.equal(downgraded.refusedBy?.window, 'hourly');
  clock.advance(3_600_000);
  assert.equal((await limiter.check('free', 'account:1')).allowed, true, 'a new hour');
});

test('parseRateLimits keeps defaults for tiers left out and names bad entries', () => {
  assert.deepEqual(parseRateLimits('free=5/50').free, { hourly: 5, daily: 50 });
  assert.deepEqual(parseRateLimits('free=5/50').public, DEFAULT_TIER_LIMITS.public);
  assert.throws(() => parseRateLimits('gold=1/2'), /unknown tier "gold"/);
  assert.throws(() => parseRateLimits('public=100'), /"public=100"/);
  assert.throws(() => parseRateLimits('public=100/50'), /daily limit is below/);
  assert.throws(() => parseRateLimits('public=1/2,public=3/4'), /the tier "public" is given twice/);
});

test('the memory store answers without a promise (the hook relies on it for its fast path)', () => {
  const store = createMemoryRateLimitStore();
  const answer = store.consume([{ window: 'w', subject: 's', limit: 2, expiresAt: Date.now() + 60_000 }]);
  assert.ok(!(answer instanceof Promise));
  assert.deepEqual(answer, { allowed: true, counts: [1] });
});

/** The memory store behind a promise, as a shared store answers. */
function asynchronousStore(now: () => number): RateLimitStore {
  const inner = createMemoryRateLimitStore(now);
  return { consume: async (counters) => inner.consume(counters), close: () => inner.close() };
}

test('a store or caller lookup that answers with a promise gives the same headers, 429s and 401s', async () => {
  const answers = [];
  for (const variant of ['synchronous', 'asynchronous'] as const) {
    const clock = manualClock('2026-01-01T10:00:00Z');
    const asynchronous = variant === 'asynchronous';
    const callers: CallerResolver = {
      resolve(clientIp, authorization) {
        if (authorization === 'Bearer good') {
          const caller = { tier: 'free' as const, subject: 'account:1', accountId: '1' };
          return asynchronous ? Promise.resolve(caller) : caller;
        }
        if (authorization !== undefined) {
          if (asynchronous) return Promise.reject(apiErrors.unknownApiKey());
          throw apiErrors.unknownApiKey();
        }
        return publicCaller(clientIp);
      },
    };
    const app = await buildTestApp(
      { RATE_LIMITS: 'public=3/10,free=5/10' },
      { now: clock.now, callers, ...(asynchronous ? { rateLimitStore: asynchronousStore(clock.now) } : {}) },
    );
    const seen = [];
    for (const authorization of [undefined, 'Bearer bad', undefined, 'Bearer good', undefined, undefined]) {
      const response = await app.inject({
        url: '/api/v1/ipv6',
        remoteAddress: '203.0.113.9',
        headers: authorization ? { authorization } : {},
      });
      seen.push([
        response.statusCode,
        response.headers['x-ratelimit-limit'],
        response.headers['x-ratelimit-remaining'],
        response.headers['x-ratelimit-reset'],
      ]);
    }
    answers.push(seen);
    await app.close();
  }
  const reset = String(unix('2026-01-01T11:00:00Z'));
  // The bad key counts against the client's IP; the good key counts against the account.
  const expected = [
    [200, '3', '2', reset],
    [401, '3', '1', reset],
    [200, '3', '0', reset],
    [200, '5', '4', reset],
    [429, '3', '0', reset],
    [429, '3', '0', reset],
  ];
  assert.deepEqual(answers[0], expected);
  assert.deepEqual(answers[1], expected);
});
