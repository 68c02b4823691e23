import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextTickShapeRetained, retainNextTickShape } from '../../src/runtime/next-tick-shape.ts';

test('one nextTick queue entry is held, and ticks run as before', async () => {
  retainNextTickShape();
  assert.ok(nextTickShapeRetained());
  retainNextTickShape(); // a second call changes nothing
  assert.ok(nextTickShapeRetained());
  const order: string[] = [];
  process.nextTick(() => order.push('tick'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['tick']);
});
