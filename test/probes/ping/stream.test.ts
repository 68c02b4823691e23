import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { PingEvent } from '../../../src/probes/ping/events.ts';
import { buildTestApp } from '../../support/app.ts';
import { capturedCommand, capturedExitCode, loadCapturedOutputs } from '../../support/captured-output.ts';
import { createFakeSpawner, replayInHalfLines } from '../../support/fake-spawner.ts';
import { parseSseBody } from '../../support/sse-client.ts';

// Every captured ping output, replayed by a fake child in half-line chunks through the real route
// (ALLOW_PRIVATE_TARGETS so the captured documentation-range targets are allowed).
const captures = loadCapturedOutputs('ping');

async function streamCapture(scenario: string, asked?: string) {
  const capture = captures.find((entry) => entry.scenario === scenario);
  assert.ok(capture, scenario);
  const command = capturedCommand('ping', scenario);
  const count = Number(command[command.indexOf('-c') + 1]);
  // The name-error captures ran ping on a name; the service only ever gives it an address.
  const address = asked ?? (command.at(-1) as string);
  const fake = createFakeSpawner(replayInHalfLines(capture, capturedExitCode('ping', scenario)));
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const host = address.includes(':') ? `[${address}]` : address;
  const response = await app.inject({ url: `/api/v1/ping?host=${encodeURIComponent(host)}&count=${count}` });
  await app.close();
  assert.equal(response.statusCode, 200, `${scenario}: ${response.body}`);
  return { events: parseSseBody(response.body), count, address, capture, child: fake.children[0] };
}

function byType(events: Record<string, unknown>[], type: string) {
  return events.filter((event) => event.type === type);
}

test('every ping capture: framing, documented event shapes, start first, one result per seq, done as captured', async () => {
  const results = captures.filter((capture) => !capture.scenario.startsWith('name-error'));
  assert.ok(results.length >= 10, 'fixtures missing');
  for (const { scenario } of results) {
    const { events, address, capture, child } = await streamCapture(scenario);
    assert.deepEqual(child?.args.slice(-2), [address.includes(':') ? '-6' : '-4', address], scenario);
    for (const event of events) assert.ok(Value.Check(PingEvent, event), `${scenario}: ${JSON.stringify(event)}`);
    assert.deepEqual(events[0], { type: 'start', host: address, resolved_ip: address }, scenario);
    const done = events.at(-1) as Record<string, unknown>;
    assert.equal(done.type, 'done', scenario);
    const { duplicates, type: _type, ...fields } = done;
    assert.deepEqual(fields, capture.expected.done, `${scenario}: done`);
    // One reply or timeout per seq from 1 to packets_sent, in increasing order (late replies aside).
    const perSeq = events.filter((event) => (event.type === 'reply' && !event.late) || event.type === 'timeout');
    assert.deepEqual(
      perSeq.map((event) => event.seq),
      Array.from({ length: Number(done.packets_sent) }, (_, i) => i + 1),
      `${scenario}: seqs`,
    );
    assert.equal(typeof duplicates, 'number');
  }
});

test('mixed replies and timeouts stream in the order ping printed them', async () => {
  const { events } = await streamCapture('ipv4-mixed');
  assert.deepEqual(
    events.slice(1, -1).map((event) => `${event.type}:${event.seq}`),
    ['reply:1', 'reply:2', 'timeout:3', 'timeout:4', 'reply:5', 'reply:6'],
  );
  assert.deepEqual(events[1], { type: 'reply', seq: 1, ip: '203.0.113.2', time_ms: 0.044, ttl: 62 });
  assert.deepEqual(events[3], { type: 'timeout', seq: 3, reason: 'no_reply' });
  assert.equal(byType(events, 'done')[0]?.packet_loss, 33.33);
});

test("the last request's timeout, which ping never prints, is sent before done", async () => {
  const { events } = await streamCapture('ipv4-timeouts');
  assert.deepEqual(
    events.slice(1).map((event) => `${event.type}:${event.seq ?? ''}`),
    ['timeout:1', 'timeout:2', 'timeout:3', 'done:'],
  );
  assert.equal(byType(events, 'done')[0]?.alive, false);
});

test('an ICMP error is a timeout with reason icmp_error, the router and its words; the later "no answer yet" is not repeated', async () => {
  const { events } = await streamCapture('ipv4-host-unreachable-no-deadline');
  assert.deepEqual(
    byType(events, 'timeout'),
    [1, 2, 3].map((seq) => ({
      type: 'timeout',
      seq,
      reason: 'icmp_error',
      from: '192.0.2.1',
      message: 'Destination Host Unreachable',
    })),
  );
  const ipv6 = await streamCapture('ipv6-admin-prohibited');
  const first = byType(ipv6.events, 'timeout')[0];
  assert.equal(first?.reason, 'icmp_error');
  assert.match(String(first?.message), /prohibited/i);
});

test('duplicate replies (DUP!, and the unmarked ones of a broadcast) are counted, not sent', async () => {
  for (const scenario of ['ipv4-duplicates', 'ipv4-broadcast']) {
    const { events } = await streamCapture(scenario);
    assert.deepEqual(
      byType(events, 'reply').map((event) => event.seq),
      [1, 2, 3],
      scenario,
    );
    assert.equal(byType(events, 'done')[0]?.duplicates, 2, scenario);
  }
});

test('ping complaining on stderr without statistics ends the stream with its words as an error event', async () => {
  const { events } = await streamCapture('name-error-not-known', '127.0.0.1');
  assert.deepEqual(
    events.map((event) => event.type),
    ['start', 'error'],
  );
  assert.equal(events[1]?.message, 'ping failed: no-such-host.invalid: Name or service not known');
});
