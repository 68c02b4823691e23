import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGenerationalMap } from '../../src/cache/generational-map.ts';

describe('generational map', () => {
  it('keeps at most its bound, dropping the older generation whole', () => {
    const map = createGenerationalMap<string, number>(4);
    for (const [index, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, index);
    // Generations of two: [a b] became previous when c arrived, [c d] when e arrived; [a b] went.
    assert.equal(map.get('a'), undefined);
    assert.equal(map.get('b'), undefined);
    assert.deepEqual(
      ['c', 'd', 'e'].map((key) => map.get(key)),
      [2, 3, 4],
    );
  });

  it('moves an entry read from the previous generation forward, so it outlives unread ones', () => {
    const map = createGenerationalMap<string, number>(4);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3); // [a b] is now the previous generation
    assert.equal(map.get('a'), 1); // moved to the current one: [c a]
    map.set('d', 4); // current full: [c a] becomes previous, b is dropped
    assert.equal(map.get('b'), undefined);
    assert.equal(map.get('a'), 1);
    assert.equal(map.get('c'), 3);
    assert.equal(map.get('d'), 4);
  });

  it('overwrites a key in the current generation without growing', () => {
    const map = createGenerationalMap<string, number>(4);
    map.set('a', 1);
    map.set('a', 2);
    map.set('b', 3);
    assert.equal(map.get('a'), 2);
    map.set('c', 4); // [a b] full: rotates; a and b still readable from the previous generation
    assert.equal(map.get('a'), 2);
    assert.equal(map.get('b'), 3);
  });
});
