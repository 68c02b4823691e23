import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryMeshStore } from '../../src/mesh/memory-store.ts';
import { jobsOf, meshStoreContract, record } from './store-contract.ts';

meshStoreContract(() => createMemoryMeshStore({ ttlMs: 60_000, now: Date.now }));

test('a measurement is forgotten after its TTL', async () => {
  let now = 1_000_000;
  const store = createMemoryMeshStore({ ttlMs: 1000, now: () => now });
  const m = record(['a']);
  await store.create(m, jobsOf(m));
  assert.notEqual(await store.state(m.id), null);
  now += 1001;
  assert.equal(await store.state(m.id), null);
  assert.equal(await store.events(m.id, null), null);
});
