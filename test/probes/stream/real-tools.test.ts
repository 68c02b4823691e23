import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { MtrEvent } from '../../../src/probes/mtr/events.ts';
import { PingEvent } from '../../../src/probes/ping/events.ts';
import { createHelperSpawner } from '../../../src/probes/spawn/spawn-helper.ts';
import type { Spawner } from '../../../src/probes/spawn/spawner.ts';
import { TracerouteEvent } from '../../../src/probes/traceroute/events.ts';
import { buildTestApp } from '../../support/app.ts';
import { openStream } from '../../support/sse-client.ts';

// The real iputils ping and traceroute, on loopback only, through the HTTP route and a real client.
// Skipped, visibly, where a tool is not installed or the machine has no IPv6 loopback.
const missing = (tool: string): string | false =>
  spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0 ? false : `${tool} is not installed`;
const noIpv6 = (): string | false =>
  missing('ping') ||
  (spawnSync('ping', ['-6', '-n', '-c', '1', '-W', '1', '::1']).status === 0 ? false : 'no IPv6 loopback');

/** The service's own spawner (the helper process), keeping every child it starts to read its pid. */
function recordingSpawner() {
  const helper = createHelperSpawner();
  const children: ReturnType<Spawner>[] = [];
  const spawner: Spawner = (command, args) => {
    const child = helper.spawner(command, args);
    children.push(child);
    return child;
  };
  return { spawner, pids: () => children.map((child) => child.pid), close: helper.close };
}

/** The app as it runs in production: the tools are started by its spawn helper. */
async function serve(spawner?: Spawner, env: Record<string, string> = {}) {
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', ...env }, spawner ? { spawner } : {});
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** True when no process has this pid any more (killed and reaped: not even a zombie). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' && !existsSync(`/proc/${pid}`);
  }
}

async function eventually(condition: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

for (const [address, skip] of [
  ['127.0.0.1', missing('ping')],
  ['::1', noIpv6()],
] as const) {
  test(`real ping to ${address}: start, replies 1..3 as they happen, done`, { skip }, async () => {
    const { app, base } = await serve();
    const stream = await openStream(`${base}/api/v1/ping?host=${encodeURIComponent(address)}&count=3`);
    assert.equal(stream.status, 200);
    const received = await stream.done;
    const events = received.map((entry) => entry.event);
    for (const event of events) assert.ok(Value.Check(PingEvent, event), JSON.stringify(event));
    assert.deepEqual(events[0], { type: 'start', host: address, resolved_ip: address });
    const replies = events.slice(1, -1);
    assert.deepEqual(
      replies.map((event) => [event.type, event.seq, event.ip]),
      [1, 2, 3].map((seq) => ['reply', seq, address]),
    );
    for (const reply of replies) {
      assert.ok(typeof reply.time_ms === 'number' && reply.time_ms >= 0 && reply.time_ms < 100);
      assert.ok(Number.isInteger(reply.ttl) && Number(reply.ttl) > 0);
    }
    // ping sends one request a second: replies that arrive a second apart were streamed, not batched.
    const gap = (received[3]?.at ?? 0) - (received[2]?.at ?? 0);
    assert.ok(gap > 800 && gap < 1500, `replies 2 and 3 arrived ${gap.toFixed(0)} ms apart`);
    const done = events.at(-1) as Record<string, number | boolean>;
    assert.equal(done.type, 'done');
    assert.deepEqual(
      [done.alive, done.packets_sent, done.packets_received, done.packet_loss, done.duplicates],
      [true, 3, 3, 0, 0],
    );
    assert.ok(Number(done.min_ms) <= Number(done.avg_ms) && Number(done.avg_ms) <= Number(done.max_ms));
    await app.close();
  });
}

test('real traceroute to 127.0.0.1: one hop, the destination, reached', { skip: missing('traceroute') }, async () => {
  const { app, base } = await serve();
  const stream = await openStream(`${base}/api/v1/traceroute?host=127.0.0.1`);
  const events = (await stream.done).map((entry) => entry.event);
  for (const event of events) assert.ok(Value.Check(TracerouteEvent, event), JSON.stringify(event));
  assert.deepEqual(events[0], { type: 'start', host: '127.0.0.1', resolved_ip: '127.0.0.1' });
  assert.equal(events[1]?.type, 'hop');
  assert.equal(events[1]?.hop, 1);
  assert.equal(events[1]?.ip, '127.0.0.1');
  // The test's resolver (a closed port) finds no PTR: the hostname is the address.
  assert.equal(events[1]?.hostname, '127.0.0.1');
  assert.deepEqual(events[2], { type: 'done', total_hops: 1, reached: true });
  await app.close();
});

test('the client aborting mid-stream kills the real ping at once: no process, no zombie', {
  skip: missing('ping'),
}, async () => {
  const recorder = recordingSpawner();
  const { app, base } = await serve(recorder.spawner);
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&count=10`);
  await stream.nth(2); // start and the first reply: ping is running
  const [pid] = recorder.pids();
  assert.ok(pid !== undefined && !gone(pid), 'ping is running');
  stream.abort();
  assert.ok(await eventually(() => gone(pid), 1000), `ping ${pid} still exists after the client left`);
  await app.close();
  await recorder.close();
});

test('closing the server mid-stream ends the stream with an error event and kills the real ping', {
  skip: missing('ping'),
}, async () => {
  const recorder = recordingSpawner();
  const { app, base } = await serve(recorder.spawner);
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&count=10`);
  await stream.nth(2);
  const [pid] = recorder.pids();
  const started = performance.now();
  await app.close();
  assert.ok(performance.now() - started < 1000, 'close does not wait for ping to finish');
  const events = (await stream.done).map((entry) => entry.event);
  assert.equal(events.at(-1)?.type, 'error');
  assert.ok(pid !== undefined && (await eventually(() => gone(pid), 1000)), `ping ${pid} survived the shutdown`);
  await recorder.close();
});

test('clients leaving right after start (ping maybe not spawned yet): no ping is left running', {
  skip: missing('ping'),
}, async () => {
  const recorder = recordingSpawner();
  // One caller's 20th stream needs more than 19/20 of the slots free (the fair share, slots.ts).
  const { app, base } = await serve(recorder.spawner, { STREAM_MAX_PER_CLIENT: '20', STREAM_MAX_CONCURRENT: '400' });
  const streams = await Promise.all(
    Array.from({ length: 20 }, () => openStream(`${base}/api/v1/ping?host=127.0.0.1&count=10`)),
  );
  for (const stream of streams) {
    await stream.nth(1);
    stream.abort();
  }
  // Regression: a kill that reached the spawn helper before the tool's spawn turn was ignored, and
  // that ping then ran its full count with nobody reading it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const left = recorder.pids().filter((pid): pid is number => pid !== undefined && !gone(pid));
  assert.deepEqual(left, [], 'pings still running');
  await app.close();
  await recorder.close();
});

/** True when the process is gone or has exited and only waits to be reaped (a zombie). */
function dead(pid: number): boolean {
  if (gone(pid)) return true;
  try {
    // The state is the first field after the parenthesised command name.
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return gone(pid);
  }
}

/** The pids of a process's children (mtr starts mtr-packet, which sends the probes). */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

test('real mtr to 127.0.0.1: one hop a round as the rounds go, done with the hop, reached', {
  skip: missing('mtr'),
}, async () => {
  const { app, base } = await serve();
  const stream = await openStream(`${base}/api/v1/mtr?host=127.0.0.1&count=3`);
  assert.equal(stream.status, 200);
  const received = await stream.done;
  const events = received.map((entry) => entry.event);
  for (const event of events) assert.ok(Value.Check(MtrEvent, event), JSON.stringify(event));
  assert.deepEqual(events[0], { type: 'start', host: '127.0.0.1', resolved_ip: '127.0.0.1' });
  const hops = events.slice(1, -1);
  assert.deepEqual(
    hops.map((event) => [event.type, event.hop, event.ip, event.hostname, event.sent, event.received, event.loss]),
    [1, 2, 3].map((round) => ['hop', 1, '127.0.0.1', '127.0.0.1', round, round, 0]),
  );
  // One round a second: the rounds' events were streamed as they came, not batched at the end.
  const gap = (received[3]?.at ?? 0) - (received[2]?.at ?? 0);
  assert.ok(gap > 800 && gap < 1500, `rounds 2 and 3 arrived ${gap.toFixed(0)} ms apart`);
  const done = events.at(-1) as { type: string; hops: Record<string, number>[]; reached: boolean };
  assert.equal(done.type, 'done');
  assert.equal(done.reached, true);
  assert.equal(done.hops.length, 1);
  const [best, avg, worst, stdev] = ['best_ms', 'avg_ms', 'worst_ms', 'stdev_ms'].map((field) =>
    Number(done.hops[0]?.[field]),
  );
  assert.ok(Number(best) <= Number(avg) && Number(avg) <= Number(worst) && Number(stdev) >= 0);
  await app.close();
});

test('the client aborting mid-MTR kills mtr at once (reaped) and its children (mtr-packet) end with it', {
  skip: missing('mtr'),
}, async (t) => {
  const recorder = recordingSpawner();
  const { app, base } = await serve(recorder.spawner);
  t.after(async () => {
    await app.close();
    await recorder.close();
  });
  const stream = await openStream(`${base}/api/v1/mtr?host=127.0.0.1&count=30`);
  await stream.nth(2); // start and the first round: mtr is running
  const [pid] = recorder.pids();
  assert.ok(pid !== undefined && !gone(pid), 'mtr is running');
  const helpers = childPids(pid);
  assert.ok(helpers.length >= 1, 'mtr runs its mtr-packet');
  stream.abort();
  assert.ok(await eventually(() => gone(pid), 1000), `mtr ${pid} still exists after the client left`);
  // mtr's children (mtr-packet, and a fork of mtr) end when mtr's pipes close. Orphans are reaped by
  // init, not by the service: dead is enough (this machine's init reaps them lazily).
  for (const helper of helpers) {
    assert.ok(await eventually(() => dead(helper), 1000), `mtr's child ${helper} still runs after the client left`);
  }
});
