import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeyCache } from '../../src/accounts/key-cache.ts';
import { manualClock } from '../support/app.ts';

const owner = (keyId: string, accountId = 'acc') => ({ keyId, accountId, plan: 'free' as const, disabled: false });

test('entries expire, and the oldest goes first when full', () => {
  const clock = manualClock('2026-01-01T00:00:00Z');
  const cache = createKeyCache({ maxEntries: 2, ttlMs: 1000, now: clock.now });
  cache.set('a', owner('ka'), cache.generation());
  cache.set('b', owner('kb'), cache.generation());
  assert.deepEqual(cache.get('a'), owner('ka'));
  cache.set('c', owner('kc'), cache.generation());
  assert.equal(cache.get('a'), undefined, 'the oldest went, used or not');
  assert.ok(cache.get('b'));
  clock.advance(999);
  assert.ok(cache.get('c'));
  clock.advance(1);
  assert.equal(cache.get('c'), undefined);
});

test('invalidation by key and by account', () => {
  const cache = createKeyCache();
  cache.set('a', owner('ka', 'acc1'), cache.generation());
  cache.set('b', owner('kb', 'acc1'), cache.generation());
  cache.set('c', owner('kc', 'acc2'), cache.generation());
  cache.invalidateKey('ka');
  assert.equal(cache.get('a'), undefined);
  cache.invalidateAccount('acc1');
  assert.equal(cache.get('b'), undefined);
  assert.ok(cache.get('c'));
  cache.clear();
  assert.equal(cache.get('c'), undefined);
});

test('regression: a lookup that raced a revocation does not put the revoked key back', () => {
  const cache = createKeyCache();
  const seen = cache.generation(); // a request starts looking the key up in the database...
  cache.invalidateKey('ka'); // ...the key is revoked meanwhile...
  cache.set('a', owner('ka'), seen); // ...and the stale answer arrives
  assert.equal(cache.get('a'), undefined);
});
