import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { MtrEvent } from '../../../src/probes/mtr/events.ts';
import { buildTestApp } from '../../support/app.ts';
import { capturedCommand, capturedExitCode, loadCapturedOutputs } from '../../support/captured-output.ts';
import { createFakeSpawner, type FakeChild, replayInHalfLines } from '../../support/fake-spawner.ts';
import { openStream, parseSseBody } from '../../support/sse-client.ts';

// Every captured mtr output, replayed by a fake child in half-line chunks through the real route.
const captures = loadCapturedOutputs('mtr');

async function streamCapture(scenario: string, asked?: string) {
  const capture = captures.find((entry) => entry.scenario === scenario);
  assert.ok(capture, scenario);
  const command = capturedCommand('mtr', scenario);
  const count = Number(command[command.indexOf('-c') + 1]);
  const address = asked ?? (command.at(-1) as string);
  const fake = createFakeSpawner(replayInHalfLines(capture, capturedExitCode('mtr', scenario)));
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const host = address.includes(':') ? `[${address}]` : address;
  const response = await app.inject({ url: `/api/v1/mtr?host=${encodeURIComponent(host)}&count=${count}` });
  await app.close();
  assert.equal(response.statusCode, 200, `${scenario}: ${response.body}`);
  return { events: parseSseBody(response.body), count, address, capture, child: fake.children[0] };
}

test('every mtr capture: framing, documented events, start first, hops while running, done as captured with hostnames', async () => {
  const results = captures.filter((capture) => capture.expected.done !== null);
  assert.ok(results.length >= 7, 'fixtures missing');
  for (const { scenario } of results) {
    const { events, address, capture, child, count } = await streamCapture(scenario);
    assert.deepEqual(child?.command, 'mtr');
    assert.deepEqual(child?.args, [
      '--raw',
      '-n',
      '-c',
      String(count),
      '-G',
      '2',
      '-m',
      '30',
      address.includes(':') ? '-6' : '-4',
      address,
    ]);
    for (const event of events) assert.ok(Value.Check(MtrEvent, event), `${scenario}: ${JSON.stringify(event)}`);
    assert.deepEqual(events[0], { type: 'start', host: address, resolved_ip: address }, scenario);
    const done = events.at(-1) as { type: string; hops: Record<string, unknown>[]; reached: boolean };
    assert.equal(done.type, 'done', scenario);
    // No resolver answers here, so each hostname is the address itself (null for a silent hop).
    const expected = capture.expected.done as { hops: Record<string, unknown>[]; reached: boolean };
    assert.deepEqual(
      done,
      {
        type: 'done',
        reached: expected.reached,
        hops: expected.hops.map((hop) => ({ ...hop, hostname: hop.ip })),
      },
      scenario,
    );
    const hops = events.slice(1, -1);
    assert.ok(hops.length > 0 && hops.every((event) => event.type === 'hop'), scenario);
    // Only the hops done shows, and each hop's latest event agrees with done on what the end does not change.
    const finals = (events.at(-1) as { hops: Record<string, unknown>[] }).hops;
    for (const final of finals) {
      const latest = hops.filter((event) => event.hop === final.hop).at(-1);
      assert.ok(latest, `${scenario}: hop ${final.hop} never sent`);
      for (const field of ['ip', 'hostname', 'received', 'last_ms', 'avg_ms', 'best_ms', 'worst_ms', 'stdev_ms']) {
        assert.deepEqual(latest[field], final[field], `${scenario}: hop ${final.hop} ${field}`);
      }
    }
    assert.ok(
      hops.every((event) => Number(event.hop) <= finals.length),
      `${scenario}: a hop beyond those shown`,
    );
  }
});

test('a silent hop: ip, hostname and times null, 100% loss, sent once a round; the hops around it answer', async () => {
  const { events } = await streamCapture('ipv4-silent-hop');
  const hop2 = events.filter((event) => event.type === 'hop' && event.hop === 2);
  assert.deepEqual(
    hop2.map((event) => [event.ip, event.hostname, event.sent, event.received, event.loss, event.last_ms]),
    [
      [null, null, 2, 0, 100, null],
      [null, null, 3, 0, 100, null],
    ],
  );
  const done = events.at(-1) as { hops: { loss: number }[] };
  assert.deepEqual(
    done.hops.map((hop) => hop.loss),
    [0, 100, 0],
  );
});

test('packet loss mid-run shows in the running figures and in done', async () => {
  const { events } = await streamCapture('ipv4-packet-loss');
  const hop3 = events.filter((event) => event.type === 'hop' && event.hop === 3).map((event) => event.loss);
  assert.ok(hop3.includes(0) && hop3.some((loss) => Number(loss) > 0), JSON.stringify(hop3));
  const done = events.at(-1) as { hops: { loss: number; sent: number; received: number }[] };
  assert.deepEqual(
    done.hops.map((hop) => [hop.sent, hop.received, hop.loss]),
    [
      [6, 4, 33.33],
      [6, 4, 33.33],
      [6, 4, 33.33],
    ],
  );
});

test('mtr complaining without probing ends the stream with its words as an error event', async () => {
  const { events } = await streamCapture('family-mismatch', '127.0.0.1');
  assert.deepEqual(events, [
    { type: 'start', host: '127.0.0.1', resolved_ip: '127.0.0.1' },
    { type: 'error', message: 'mtr failed: Failed to resolve host: ::1: Address family for hostname not supported' },
  ]);
});

test('each hop event is written as soon as its line arrives; the client leaving kills mtr', {
  timeout: 5000,
}, async () => {
  let child: FakeChild | undefined;
  const fake = createFakeSpawner((spawned) => {
    child = spawned;
  });
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const stream = await openStream(
    `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/mtr?host=127.0.0.1&count=30`,
  );
  await stream.nth(1);
  child?.stdout('x 0 33000\nh 0 127.0.0.1\n');
  child?.stdout('p 0 61 33000\n');
  assert.deepEqual((await stream.nth(2)).event, {
    type: 'hop',
    hop: 1,
    ip: '127.0.0.1',
    hostname: '127.0.0.1',
    sent: 1,
    received: 1,
    loss: 0,
    last_ms: 0.061,
    avg_ms: 0.061,
    best_ms: 0.061,
    worst_ms: 0.061,
    stdev_ms: 0,
  });
  child?.stdout('x 0 33001\np 0 80 33001\n');
  assert.equal((await stream.nth(3)).event.received, 2);
  stream.abort();
  const until = Date.now() + 2000;
  while (!child?.exited && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(child?.killedWith, 'SIGKILL');
  await app.close();
});
