import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IpData } from '../../../src/ipinfo/data/ip-data.ts';
import { createIpDataStore } from '../../../src/ipinfo/data/ip-data-store.ts';
import { buildSecurityFeeds } from '../../../src/ipinfo/data/security-feeds.ts';

const quiet = { info() {}, warn() {}, error() {} };
const snapshot = (name: string, problems: string[] = []): IpData => ({
  feeds: buildSecurityFeeds({}),
  feedsLoaded: new Set(),
  sources: [{ kind: 'database', source: 'location', origin: 'embedded', description: name, updatedAt: 0, entries: 0 }],
  problems,
  attribution: name,
  kept: {},
});

/** A store whose load finishes only when the test says so (`pending.finish`). */
function storeWithPendingLoad() {
  const pending: { finish?: (data: IpData) => void } = {};
  const store = createIpDataStore({
    load: () =>
      new Promise((resolve) => {
        pending.finish = resolve;
      }),
    watchFile: '/nonexistent/manifest.json',
    watchIntervalMs: 1000,
    log: quiet,
  });
  return { store, pending };
}

describe('the IP data store', { timeout: 30_000 }, () => {
  it('readiness: idle (ready, loads on demand), starting while loading, then ready or degraded', async () => {
    const { store, pending } = storeWithPendingLoad();
    assert.equal(store.readinessCheck().state, 'ready');
    assert.match(store.readinessCheck().detail ?? '', /loads on the first request/);
    const loading = store.loaded();
    for (let i = 0; pending.finish === undefined && i < 5000; i++) await sleep(1);
    assert.deepEqual(store.readinessCheck(), { state: 'starting', detail: 'loading' });
    assert.ok(pending.finish, 'the store asked for data');
    pending.finish(snapshot('first', ['ASN data: broken; using the embedded data']));
    assert.equal((await loading).attribution, 'first');
    assert.equal(store.readinessCheck().state, 'degraded');
    assert.match(store.readinessCheck().detail ?? '', /ASN data: broken/);
    await store.close();
  });

  it('a reload asked while the first load is still reading waits for it, so the newer data stays', async () => {
    const finishes: ((data: IpData) => void)[] = [];
    const store = createIpDataStore({
      load: () =>
        new Promise((resolve) => {
          finishes.push(resolve);
        }),
      watchFile: '/nonexistent/manifest.json',
      watchIntervalMs: 1000,
      log: quiet,
    });
    const first = store.loaded();
    for (let i = 0; finishes.length === 0 && i < 5000; i++) await sleep(1);
    // New data is installed (a worker thread is told to reload) while the first load still reads the old files.
    const reloaded = store.reload('new data was installed');
    await sleep(20);
    assert.equal(finishes.length, 1, 'the reload has not started a second load beside the first');
    finishes[0]?.(snapshot('old'));
    await first;
    for (let i = 0; finishes.length === 1 && i < 5000; i++) await sleep(1);
    finishes[1]?.(snapshot('new'));
    await reloaded;
    assert.equal(store.current?.attribution, 'new');
    await store.close();
  });

  it('an explicit reload is not followed by a second one when the watcher sees the manifest it already loaded', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-'));
    const manifest = path.join(dir, 'manifest.json');
    let loads = 0;
    const store = createIpDataStore({
      load: async () => snapshot(`load ${++loads}`),
      watchFile: manifest,
      watchIntervalMs: 10,
      log: quiet,
    });
    try {
      await store.loaded();
      writeFileSync(manifest, '{}'); // as the refresh's updater does, before the refresh reloads
      await store.reload('scheduled refresh');
      await sleep(200);
      assert.equal(loads, 2, 'the first load and the refresh, not a third for the same manifest');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close waits for a load under way (it writes caches into DATA_DIR, which may be removed next)', async () => {
    const { store, pending } = storeWithPendingLoad();
    void store.loaded();
    for (let i = 0; pending.finish === undefined && i < 5000; i++) await sleep(1);
    let closed = false;
    const closing = store.close().then(() => {
      closed = true;
    });
    await sleep(20);
    assert.equal(closed, false, 'closed while the load was still running');
    pending.finish?.(snapshot('late'));
    await closing;
    assert.equal(closed, true);
  });

  it('a failed reload keeps the current snapshot and says so; the watched file triggers reloads', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-'));
    const manifest = path.join(dir, 'manifest.json');
    const results: (IpData | Error)[] = [snapshot('one'), new Error('disk on fire'), snapshot('three')];
    const previousSeen: (string | undefined)[] = [];
    const store = createIpDataStore({
      load: async (previous) => {
        previousSeen.push(previous?.attribution);
        const next = results.shift() as IpData | Error;
        if (next instanceof Error) throw next;
        return next;
      },
      watchFile: manifest,
      watchIntervalMs: 10,
      log: quiet,
    });
    const inUse = () => store.current?.attribution;
    try {
      await store.loaded();
      await store.reload('test');
      assert.equal(inUse(), 'one', 'kept');
      assert.equal(store.readinessCheck().state, 'degraded');
      assert.match(store.readinessCheck().detail ?? '', /last reload failed: disk on fire/);
      writeFileSync(manifest, '{}');
      for (let i = 0; i < 200 && inUse() !== 'three'; i++) await sleep(10);
      assert.equal(inUse(), 'three', 'reloaded when the manifest appeared');
      assert.equal(store.readinessCheck().state, 'ready');
      assert.deepEqual(previousSeen, [undefined, 'one', 'one'], 'each load is given the snapshot in use');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
