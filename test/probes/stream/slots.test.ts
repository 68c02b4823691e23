import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createStreamSlots } from '../../../src/probes/stream/slots.ts';

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
