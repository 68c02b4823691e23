import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import type { Resolver } from '../../../src/dns/resolver.ts';
import { TracerouteEvent } from '../../../src/probes/traceroute/events.ts';
import type { TracerouteHop, TracerouteLine } from '../../../src/probes/traceroute/parse.ts';
import { buildTestApp } from '../../support/app.ts';
import { capturedCommand, capturedExitCode, loadCapturedOutputs } from '../../support/captured-output.ts';
import { createFakeResolver } from '../../support/fake-resolver.ts';
import { createFakeSpawner, type FakeChild, replayInHalfLines } from '../../support/fake-spawner.ts';
import { openStream, parseSseBody } from '../../support/sse-client.ts';

const captures = loadCapturedOutputs('traceroute');
const PTR: Record<string, string> = { '192.0.2.1': 'r1.netinfo.test', '2001:db8:1::1': 'r1.netinfo.test' };

// The stream runs traceroute with one probe per hop; the -q 3 captures show another format. Runs without a
// result (name errors, missing privileges) have their own tests.
const streamable = captures.filter((c) => !c.scenario.includes('-q3') && c.expected.done !== null);

async function streamCapture(scenario: string, asked?: string) {
  const capture = captures.find((entry) => entry.scenario === scenario);
  assert.ok(capture, scenario);
  const address = asked ?? (capturedCommand('traceroute', scenario).at(-1) as string);
  const fake = createFakeSpawner(replayInHalfLines(capture, capturedExitCode('traceroute', scenario)));
  const app = await buildTestApp(
    { ALLOW_PRIVATE_TARGETS: 'true' },
    { spawner: fake.spawner, resolver: createFakeResolver({ names: PTR }) },
  );
  const response = await app.inject({ url: `/api/v1/traceroute?host=${encodeURIComponent(address)}` });
  await app.close();
  assert.equal(response.statusCode, 200, `${scenario}: ${response.body}`);
  return { events: parseSseBody(response.body), address, capture, child: fake.children[0] };
}

const isHop = (line: unknown): line is TracerouteHop => (line as TracerouteLine).type === 'hop';

test('every traceroute capture: framing, documented shapes, hops in order as captured, hostnames, done', async () => {
  assert.ok(streamable.length >= 10, 'fixtures missing');
  for (const { scenario } of streamable) {
    const { events, address, capture, child } = await streamCapture(scenario);
    assert.deepEqual(child?.args.slice(-2), [address.includes(':') ? '-6' : '-4', address], scenario);
    for (const event of events) assert.ok(Value.Check(TracerouteEvent, event), `${scenario}: ${JSON.stringify(event)}`);
    assert.deepEqual(events[0], { type: 'start', host: address, resolved_ip: address }, scenario);
    const expectedHops = capture.expected.events.filter(isHop).map((hop) => {
      const event: Record<string, unknown> = {
        type: 'hop',
        hop: hop.hop,
        ip: hop.ip,
        hostname: hop.ip === null ? null : (PTR[hop.ip] ?? hop.ip),
        rtt_ms: hop.rtt_ms,
      };
      if (hop.annotation) event.annotation = hop.annotation;
      return event;
    });
    assert.deepEqual(events.slice(1, -1), expectedHops, `${scenario}: hops`);
    assert.deepEqual(events.at(-1), { type: 'done', ...(capture.expected.done as object) }, `${scenario}: done`);
  }
});

test('a silent hop is a hop with ip, hostname and rtt_ms null; the trace goes on', async () => {
  const { events } = await streamCapture('ipv4-silent-hop');
  assert.deepEqual(events[2], { type: 'hop', hop: 2, ip: null, hostname: null, rtt_ms: null });
  assert.deepEqual(events.at(-1), { type: 'done', total_hops: 3, reached: true });
});

test('traceroute failing after its header ends the stream with its complaint', async () => {
  const fake = createFakeSpawner((child) => {
    child.stdout('traceroute to 192.0.2.1 (192.0.2.1), 30 hops max, 60 byte packets');
    child.stderr('connect: Network is unreachable\n');
    setImmediate(() => child.exit(1));
  });
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const response = await app.inject({ url: '/api/v1/traceroute?host=192.0.2.1' });
  await app.close();
  assert.deepEqual(parseSseBody(response.body).slice(1), [
    { type: 'error', message: 'traceroute failed: connect: Network is unreachable' },
  ]);
});

/** A listening app whose traceroute children the test writes by hand. */
async function liveApp(resolver: Resolver, env: Record<string, string> = {}) {
  const children: FakeChild[] = [];
  let spawned: (child: FakeChild) => void = () => {};
  const fake = createFakeSpawner((child) => {
    children.push(child);
    spawned(child);
  });
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', ...env }, { spawner: fake.spawner, resolver });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const nextChild = () => new Promise<FakeChild>((resolve) => (spawned = resolve));
  return { app, base: `http://127.0.0.1:${port}`, nextChild };
}

test('a hop is sent as soon as traceroute writes it, before the newline that traceroute only writes with the next hop', async () => {
  const { app, base, nextChild } = await liveApp(createFakeResolver({}));
  const childReady = nextChild();
  const stream = await openStream(`${base}/api/v1/traceroute?host=203.0.113.2`);
  const child = await childReady;
  // traceroute's real writes (strace): header without newline, then "\n" + each hop.
  child.stdout('traceroute to 203.0.113.2 (203.0.113.2), 30 hops max, 60 byte packets');
  child.stdout('\n 1  192.0.2.1  0.047 ms');
  assert.deepEqual((await stream.nth(2)).event, {
    type: 'hop',
    hop: 1,
    ip: '192.0.2.1',
    hostname: '192.0.2.1',
    rtt_ms: 0.047,
  });
  child.stdout('\n 2  *');
  assert.equal((await stream.nth(3)).event.ip, null);
  child.stdout('\n 3  203.0.113.2  0.015 ms !X');
  assert.equal((await stream.nth(4)).event.annotation, '!X');
  child.stdout('\n');
  child.exit(0);
  const events = (await stream.done).map((received) => received.event);
  assert.deepEqual(
    events.map((event) => event.hop ?? event.type),
    ['start', 1, 2, 3, 'done'],
  );
  assert.deepEqual(events.at(-1), { type: 'done', total_hops: 3, reached: true });
  await app.close();
});

test('hostnames: a slow PTR lookup holds its hop back by TRACEROUTE_HOSTNAME_WAIT_MS at most, and hops stay in order', async () => {
  const resolver = createFakeResolver({
    names: {
      '192.0.2.1': 'never',
      '198.51.100.2': 'r2.netinfo.test',
      '203.0.113.2': { name: 'target.test', delayMs: 30 },
    },
  });
  const { app, base, nextChild } = await liveApp(resolver, { TRACEROUTE_HOSTNAME_WAIT_MS: '150' });
  const childReady = nextChild();
  const stream = await openStream(`${base}/api/v1/traceroute?host=203.0.113.2`);
  const child = await childReady;
  const written = performance.now();
  child.stdout('traceroute to 203.0.113.2 (203.0.113.2), 30 hops max, 60 byte packets\n 1  192.0.2.1  0.05 ms');
  child.stdout('\n 2  198.51.100.2  0.06 ms');
  child.stdout('\n 3  203.0.113.2  0.07 ms\n');
  child.exit(0);
  const events = await stream.done;
  const hops = events.filter((received) => received.event.type === 'hop');
  assert.deepEqual(
    hops.map((received) => [received.event.hop, received.event.hostname]),
    [
      [1, '192.0.2.1'],
      [2, 'r2.netinfo.test'],
      [3, 'target.test'],
    ],
  );
  const waited = (hops[0]?.at ?? 0) - written;
  assert.ok(waited >= 140 && waited < 400, `hop 1 waited ${waited.toFixed(0)} ms for its name`);
  // The other lookups ran meanwhile: hops 2 and 3 follow hop 1 at once.
  assert.ok((hops[2]?.at ?? 0) - (hops[0]?.at ?? 0) < 50);
  assert.deepEqual(resolver.reverseAsked, ['192.0.2.1', '198.51.100.2', '203.0.113.2']);
  await app.close();
});
