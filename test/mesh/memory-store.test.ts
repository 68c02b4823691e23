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

test('a new measurement does not look at every one held (the scan took 85% of the CPU in bench:monitors)', async () => {
  let now = 1_000_000;
  let reads = 0;
  const store = createMemoryMeshStore({
    ttlMs: 1000,
    now: () => {
      reads++;
      return now;
    },
  });
  const first = record(['a']);
  await store.create(first, jobsOf(first));
  now += 500;
  for (let i = 0; i < 1000; i++) {
    const m = record(['a']);
    await store.create(m, jobsOf(m));
  }
  now += 600;
  reads = 0;
  const last = record(['a']);
  await store.create(last, jobsOf(last));
  assert.ok(reads < 10, `${reads} clock reads for one creation among 1,001 held`);
  assert.equal(await store.state(first.id), null, 'the expired one left');
  assert.notEqual(await store.state(last.id), null);
});
