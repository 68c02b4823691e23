import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisMeshStore } from '../../src/mesh/redis-store.ts';
import type { MeshStore } from '../../src/mesh/store.ts';
import { createRedisClient } from '../../src/scale/redis.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { jobsOf, meshStoreContract, nodeInfo, record } from './store-contract.ts';

if (redisSkipReason) console.log(`# Redis mesh store tests skipped: ${redisSkipReason}`);

const silent = { warn() {}, error() {} };

describe('the Redis mesh store', { skip: redisSkipReason }, () => {
  const suite = redisForSuite();
  let scope = 0;
  const make = async (
    heartbeatMs = 200,
    nodeTimeoutMs = 1000,
    prefix = `netinfo:mesh:test${++scope}:`,
  ): Promise<MeshStore> => {
    const redis = createRedisClient(suite.redis.url);
    redis.on('error', () => {});
    const store = createRedisMeshStore(redis, {
      prefix,
      heartbeatMs,
      nodeTimeoutMs,
      ttlMs: 60_000,
      log: silent,
    });
    await once(redis, 'ready');
    return {
      ...store,
      close: async () => {
        await store.close();
        redis.disconnect();
      },
    };
  };
  meshStoreContract(() => make());

  test('nodes silent past the timeout leave the list', async () => {
    const store = await make(200, 300);
    await store.announce(nodeInfo('a'), 'a#1');
    await store.announce(nodeInfo('b'), 'b#1');
    assert.deepEqual((await store.nodes()).map((node) => node.name).sort(), ['a', 'b']);
    await sleep(200);
    await store.announce(nodeInfo('a'), 'a#1');
    await sleep(200);
    assert.deepEqual(
      (await store.nodes()).map((node) => node.name),
      ['a'],
    );
    await store.close();
  });

  test('a sweep fails a probe whose runner went silent, and one queued on a node that is gone', async () => {
    const store = await make(200, 1000);
    // A store sweeps only once its connection has been up as long as a runner's word lasts (300 ms).
    await sleep(350);
    await store.announce(nodeInfo('a'), 'a#1');
    const m = record(['a', 'gone']);
    await store.create(m, jobsOf(m));
    assert.equal(await store.claim(m.id, 0, 'a#1'), true);
    await store.sweep(m.id);
    const early = await store.state(m.id);
    assert.deepEqual(
      early?.probes.map((probe) => probe.status),
      ['in-progress', 'failed'],
      'the runner is alive',
    );
    // The runner's key lives 1.5 heartbeats (300 ms) after its last word.
    await sleep(400);
    await store.sweep(m.id);
    const events = (await store.events(m.id, null)) ?? [];
    assert.deepEqual(
      events.map((stored) => JSON.parse(stored.json)),
      [
        { type: 'error', node: 'gone', message: 'node gone went silent before it took the probe' },
        { type: 'error', node: 'a', message: 'node a went silent during the probe' },
        { type: 'measurement_done' },
      ],
    );
    await store.sweep(m.id);
    assert.equal((await store.events(m.id, null))?.length, 3, 'a second sweep adds nothing');
    await store.close();
  });

  test('a probe no runner takes within the node timeout fails, though its node is alive', async () => {
    const store = await make(200, 1000);
    await store.announce(nodeInfo('a'), 'a#1');
    const m = record(['a']);
    await store.create(m, jobsOf(m));
    for (let i = 0; i < 6; i++) {
      await sleep(200);
      await store.announce(nodeInfo('a'), 'a#1');
    }
    await store.sweep(m.id);
    const [event] = (await store.events(m.id, null)) ?? [];
    assert.deepEqual(JSON.parse(event?.json ?? '{}'), {
      type: 'error',
      node: 'a',
      message: 'node a did not take the probe within 1 s',
    });
    assert.equal(await store.claim(m.id, 0, 'a#1'), false, 'and it is not run late');
    await store.close();
  });

  test('two runners of one node share its stream: each job reaches one of them, once', async () => {
    const prefix = `netinfo:mesh:test${++scope}:`;
    const runners = [await make(200, 1000, prefix), await make(200, 1000, prefix)];
    const received: string[][] = [[], []];
    for (const [i, store] of runners.entries()) store.consume('a', `a#${i}`, (job) => received[i]?.push(job.json));
    await sleep(200);
    const made: string[] = [];
    for (let n = 0; n < 40; n++) {
      const m = record(['a']);
      const jobs = jobsOf(m);
      made.push(jobs[0]?.job.json as string);
      await runners[n % 2]?.create(m, jobs);
    }
    for (let i = 0; i < 100 && received.flat().length < 40; i++) await sleep(20);
    await sleep(200);
    assert.deepEqual(received.flat().sort(), made.sort(), 'every job once');
    assert.ok(received[0]?.length && received[1]?.length, `both runners got jobs (${received.map((r) => r.length)})`);
    for (const store of runners) await store.close();
  });
});
