import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisStreamSlots } from '../../../src/probes/stream/redis-slots.ts';
import { createStreamSlots, type SlotRefusal, type StreamSlots } from '../../../src/probes/stream/slots.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../../support/redis-server.ts';

test('per-client cap first, then the global cap; a refusal says until when a slot is held at most', () => {
  const slots = createStreamSlots({ maxConcurrent: 3, maxPerClient: 2 });
  const a1 = slots.acquire('ip:192.0.2.1', 5000);
  const a2 = slots.acquire('ip:192.0.2.1', 3000);
  assert.ok(a1.ok && a2.ok);
  assert.deepEqual(slots.acquire('ip:192.0.2.1', 9000), { ok: false, scope: 'client', limit: 2, freeByMs: 3000 });
  const b1 = slots.acquire('ip:192.0.2.2', 7000);
  assert.ok(b1.ok);
  assert.deepEqual(slots.acquire('ip:192.0.2.3', 9000), { ok: false, scope: 'server', limit: 3, freeByMs: 3000 });
  assert.equal(slots.open, 3);
  a2.release();
  a2.release(); // idempotent: must not free a second slot
  assert.equal(slots.open, 2);
  assert.ok(slots.acquire('ip:192.0.2.3', 9000).ok);
  assert.equal(slots.acquire('ip:192.0.2.4', 9000).ok, false);
});

test('a client whose streams all ended starts from zero again', () => {
  const slots = createStreamSlots({ maxConcurrent: 10, maxPerClient: 1 });
  const first = slots.acquire('net:2001:db8::/64', 1);
  assert.ok(first.ok);
  first.release();
  const again = slots.acquire('net:2001:db8::/64', 1);
  assert.ok(again.ok);
  first.release(); // a stale release must not free the new slot
  assert.equal(slots.acquire('net:2001:db8::/64', 1).ok, false);
});

// Issue 28, item 10: 34 addresses held all 100 slots, and nobody else got one. A caller holding n
// streams may now open another only while free × maxPerClient > n × maxConcurrent (slots.ts), in
// this process and in Redis's script alike: each scenario below runs on both.

type Slots = Pick<StreamSlots, 'acquire'>;
type Implementation = {
  name: string;
  make(limits: { maxConcurrent: number; maxPerClient: number }): Promise<{ slots: Slots; close(): void }>;
};

const implementations: Implementation[] = [
  { name: 'in-process', make: async (limits) => ({ slots: createStreamSlots(limits), close: () => {} }) },
];
let redis: TestRedis | undefined;
let flusher: Redis | undefined;
if (!redisSkipReason) {
  implementations.push({
    name: 'redis',
    async make(limits) {
      redis ??= await startRedis();
      flusher ??= new Redis(redis.url);
      await flusher.flushall();
      const connection = new Redis(redis.url, { maxRetriesPerRequest: 0 });
      const slots = createRedisStreamSlots(connection, {
        ...limits,
        leaseMs: 60_000,
        now: Date.now,
        onError: (error) => assert.fail(error),
      });
      return { slots, close: () => connection.disconnect() };
    },
  });
} else console.log(`# the Redis twin is not tested: ${redisSkipReason}`);
after(async () => {
  flusher?.disconnect();
  await redis?.stop();
});

/** Each caller in turn takes as many slots as it is given (the order that fills the most). */
async function takeAll(slots: Slots, callers: string[], order: 'one-by-one' | 'round-robin') {
  const held = new Map<string, number>(callers.map((caller) => [caller, 0]));
  const refusals: Omit<SlotRefusal, 'freeByMs'>[] = [];
  const take = async (caller: string) => {
    const result = await slots.acquire(caller, Date.now() + 60_000);
    if (result.ok) held.set(caller, (held.get(caller) ?? 0) + 1);
    else refusals.push({ ok: false, scope: result.scope, limit: result.limit });
    return result.ok;
  };
  if (order === 'one-by-one') for (const caller of callers) while (await take(caller));
  else {
    let waiting = [...callers];
    while (waiting.length > 0) {
      const next: string[] = [];
      for (const caller of waiting) if (await take(caller)) next.push(caller);
      waiting = next;
    }
  }
  return { held, refusals, open: [...held.values()].reduce((sum, n) => sum + n, 0) };
}

const addresses = (count: number, offset = 0) =>
  Array.from(
    { length: count },
    (_, index) => `ip:198.51.${Math.floor((offset + index) / 250)}.${(offset + index) % 250}`,
  );

for (const implementation of implementations) {
  test(`${implementation.name}: a caller holding n may open another only while free × per-client cap > n × global cap`, async () => {
    const { slots, close } = await implementation.make({ maxConcurrent: 10, maxPerClient: 3 });
    try {
      const { held, refusals } = await takeAll(
        slots,
        ['ip:192.0.2.1', 'ip:192.0.2.2', 'ip:192.0.2.3', 'ip:192.0.2.4'],
        'one-by-one',
      );
      // .1 on an idle server: 3 (its third while 8 of 10 were free: 8 × 3 > 2 × 10); .2 its third
      // only while more than 6.7 are free (5 were); .3 a second while more than 3.3 (4 were); .4 one.
      assert.deepEqual([...held.values()], [3, 2, 2, 1]);
      assert.deepEqual(refusals, [
        { ok: false, scope: 'client', limit: 3 },
        { ok: false, scope: 'share', limit: 2 },
        { ok: false, scope: 'share', limit: 1 },
        { ok: false, scope: 'share', limit: 1 },
      ]);
      // Callers with none take the last two; then the server is full for everyone.
      assert.ok((await slots.acquire('ip:192.0.2.5', Date.now() + 1000)).ok);
      assert.ok((await slots.acquire('ip:192.0.2.6', Date.now() + 1000)).ok);
      const full = await slots.acquire('ip:192.0.2.7', Date.now() + 1000);
      assert.deepEqual({ ...full, freeByMs: 0 }, { ok: false, scope: 'server', limit: 10, freeByMs: 0 });
    } finally {
      close();
    }
  });

  test(`${implementation.name}: with the default caps, 34 addresses taking all they can leave slots to callers with none`, async (t) => {
    for (const order of ['one-by-one', 'round-robin'] as const) {
      for (const count of [34, 61, 100]) {
        const { slots, close } = await implementation.make({ maxConcurrent: 100, maxPerClient: 3 });
        try {
          const { open } = await takeAll(slots, addresses(count), order);
          // How many callers that held none get a slot now (each takes what it is given).
          const newcomers = await takeAll(slots, addresses(100, 1000), 'one-by-one');
          const gotOne = [...newcomers.held.values()].filter((n) => n > 0).length;
          t.diagnostic(
            `${order}, ${count} addresses: they hold ${open} of 100; ${100 - open} left, ${gotOne} new callers got one (the first ${newcomers.held.get(addresses(1, 1000)[0] as string)})`,
          );
          if (count === 34) {
            // Before the rule: 34 × 3 ≥ 100, and no newcomer got anything.
            assert.ok(100 - open >= 27, `${order}: ${open} held by 34 addresses`);
            assert.equal(gotOne, 100 - open, 'every slot left went to a different newcomer');
          }
        } finally {
          close();
        }
      }
    }
  });
}
