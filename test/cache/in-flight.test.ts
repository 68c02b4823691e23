import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedWhileInFlight } from '../../src/cache/in-flight.ts';

function deferred<V>() {
  let resolve!: (value: V) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('sharedWhileInFlight', () => {
  it('gives calls with one key made while the first runs the same promise, and starts once', async () => {
    const shared = sharedWhileInFlight<string, number>();
    const pending = deferred<number>();
    let starts = 0;
    const start = () => {
      starts++;
      return pending.promise;
    };
    const first = shared('a', start);
    const second = shared('a', start);
    assert.equal(first, second);
    assert.equal(shared.get('a'), first);
    pending.resolve(7);
    assert.deepEqual(await Promise.all([first, second]), [7, 7]);
    assert.equal(starts, 1);
  });

  it('keeps keys apart', async () => {
    const shared = sharedWhileInFlight<string, string>();
    const a = shared('a', async () => 'A');
    const b = shared('b', async () => 'B');
    assert.notEqual(a, b);
    assert.deepEqual(await Promise.all([a, b]), ['A', 'B']);
  });

  it('forgets a call once it settles, so the next one starts afresh (nothing is cached)', async () => {
    const shared = sharedWhileInFlight<string, number>();
    assert.equal(await shared('a', async () => 1), 1);
    assert.equal(shared.get('a'), undefined);
    assert.equal(await shared('a', async () => 2), 2);
  });

  it('shares a failure with every caller that joined, then forgets it', async () => {
    const shared = sharedWhileInFlight<string, number>();
    const pending = deferred<number>();
    const first = shared('a', () => pending.promise);
    const second = shared('a', async () => 0);
    pending.reject(new Error('down'));
    await assert.rejects(first, /down/);
    await assert.rejects(second, /down/);
    assert.equal(shared.get('a'), undefined);
    assert.equal(await shared('a', async () => 3), 3);
  });
});
