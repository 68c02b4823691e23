import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signJob } from '../../src/mesh/job.ts';
import type { NodeInfo } from '../../src/mesh/node-info.ts';
import type { MeasurementRecord, MeshStore } from '../../src/mesh/store.ts';

export const SECRET = 'a-mesh-secret-of-at-least-32-characters';
let counter = 0;

export function nodeInfo(name: string): NodeInfo {
  return {
    name,
    location: { country: 'DE' },
    asn: null,
    as_name: null,
    tags: [],
    tools: ['ping'],
    ipv4: true,
    ipv6: false,
    raw_sockets: true,
    version: '0.1.0',
  };
}

export function record(nodes: string[]): MeasurementRecord {
  counter++;
  return {
    id: `${process.pid.toString(16)}${counter.toString(16)}`.padStart(32, '0'),
    type: 'ping',
    target: 'example.com',
    options: {},
    created_at: new Date().toISOString(),
    probes: nodes.map((node) => ({ node, location: {}, asn: null })),
  };
}

export function jobsOf(measurement: MeasurementRecord) {
  return measurement.probes.map((probe, i) => ({
    node: probe.node,
    job: signJob(
      {
        measurement: measurement.id,
        probe: i,
        node: probe.node,
        type: 'ping',
        target: 'example.com',
        options: {},
        client_ip: '192.0.2.1',
        origin: 'a',
      },
      SECRET,
    ),
  }));
}

/** The rules every MeshStore keeps (store.ts), for the in-process one and Redis's alike. */
export function meshStoreContract(make: () => MeshStore | Promise<MeshStore>) {
  test('a probe is claimed once, by one runner, while queued', async () => {
    const store = await make();
    await store.announce(nodeInfo('a'), 'a#1');
    const m = record(['a']);
    await store.create(m, jobsOf(m));
    assert.equal(await store.claim(m.id, 0, 'a#1'), true);
    assert.equal(await store.claim(m.id, 0, 'a#1'), false);
    assert.equal(await store.claim(m.id, 0, 'a#2'), false);
    assert.equal(await store.claim('f'.repeat(32), 0, 'a#1'), false, 'an unknown measurement is not claimed');
    assert.equal((await store.state(m.id))?.probes[0]?.status, 'in-progress');
    await store.close();
  });

  test('events keep their order; nothing after a probe ends; measurement_done once, after the last end', async () => {
    const store = await make();
    await store.announce(nodeInfo('a'), 'a#1');
    const m = record(['a', 'b']);
    await store.create(m, jobsOf(m));
    let notices = 0;
    const watch = store.watch(m.id, () => notices++);
    await watch.ready;
    await store.claim(m.id, 0, 'a#1');
    await store.claim(m.id, 1, 'b#1');
    assert.equal(await store.append(m.id, 0, JSON.stringify({ type: 'start', node: 'a' })), 'appended');
    assert.equal(await store.append(m.id, 1, JSON.stringify({ type: 'start', node: 'b' })), 'appended');
    assert.equal(
      await store.append(m.id, 0, JSON.stringify({ type: 'done', node: 'a' }), {
        status: 'finished',
        result: { alive: true },
      }),
      'appended',
    );
    assert.equal(await store.append(m.id, 0, JSON.stringify({ type: 'reply', node: 'a' })), 'ended');
    const before = await store.events(m.id, null);
    assert.deepEqual(
      before?.map((stored) => JSON.parse(stored.json).type),
      ['start', 'start', 'done'],
      'no measurement_done while a probe runs',
    );
    assert.equal(
      await store.append(m.id, 1, JSON.stringify({ type: 'error', node: 'b', message: 'x' }), {
        status: 'failed',
        error: 'x',
      }),
      'appended',
    );
    assert.equal(
      await store.append(m.id, 1, JSON.stringify({ type: 'error', node: 'b' }), { status: 'failed', error: 'y' }),
      'ended',
    );
    const all = (await store.events(m.id, null)) ?? [];
    assert.deepEqual(
      all.map((stored) => `${JSON.parse(stored.json).type}:${JSON.parse(stored.json).node ?? ''}`),
      ['start:a', 'start:b', 'done:a', 'error:b', 'measurement_done:'],
    );
    const ids = all.map((stored) => stored.id);
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    const after = await store.events(m.id, ids[2] as string);
    assert.deepEqual(
      after?.map((stored) => JSON.parse(stored.json).type),
      ['error', 'measurement_done'],
      'resumes after the id given',
    );
    assert.deepEqual(await store.events(m.id, ids.at(-1) as string), []);
    const state = await store.state(m.id);
    assert.deepEqual(
      state?.probes.map((probe) => probe.status),
      ['finished', 'failed'],
    );
    assert.deepEqual(state?.probes[0]?.end, { status: 'finished', result: { alive: true } });
    assert.ok(notices >= 4, `watchers are told of appends (${notices})`);
    watch.stop();
    await store.close();
  });

  test('an unknown measurement has no events and no state, and appends to it are refused', async () => {
    const store = await make();
    const id = 'e'.repeat(32);
    assert.equal(await store.events(id, null), null);
    assert.equal(await store.state(id), null);
    assert.equal(await store.append(id, 0, JSON.stringify({ type: 'start' })), 'gone');
    await store.close();
  });

  test('a forgotten measurement is gone as an expired one is: no state, no events, appends refused', async () => {
    const store = await make();
    await store.announce(nodeInfo('a'), 'a#1');
    const m = record(['a']);
    await store.create(m, jobsOf(m));
    assert.equal(await store.claim(m.id, 0, 'a#1'), true);
    await store.forget(m.id);
    assert.equal(await store.state(m.id), null);
    assert.equal(await store.events(m.id, null), null);
    assert.equal(await store.append(m.id, 0, JSON.stringify({ type: 'start' })), 'gone');
    await store.close();
  });

  test("a node's jobs reach its runner, signed as they were made", async () => {
    const store = await make();
    const received: string[] = [];
    store.consume('a', 'a#1', (job) => received.push(job.json));
    await store.announce(nodeInfo('a'), 'a#1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const m = record(['a']);
    const jobs = jobsOf(m);
    await store.create(m, jobs);
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(received, [jobs[0]?.job.json]);
    await store.close();
  });
}
