import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { Value } from 'typebox/value';
import { PingEvent } from '../../../src/probes/ping/events.ts';
import { TCP_PING_TOOL } from '../../../src/probes/ping/tool.ts';
import { buildTestApp } from '../../support/app.ts';
import { createFakeSpawner } from '../../support/fake-spawner.ts';
import { captureLog } from '../../support/log-capture.ts';
import { openStream, readJson } from '../../support/sse-client.ts';

// TCP ping against real sockets on loopback (the black-holed and unreachable addresses are in
// test/probes/stream/netns.test.ts, which runs the service inside its test network).

async function listener() {
  const connections: { bytes: number }[] = [];
  const server: Server = createServer((socket) => {
    const connection = { bytes: 0 };
    connections.push(connection);
    socket.on('data', (data) => {
      connection.bytes += data.length;
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections };
}

/** A port nothing listens on: taken, then given back. */
async function closedPort() {
  const { server, port } = await listener();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function serve(env: Record<string, string> = {}) {
  const fake = createFakeSpawner();
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', ...env }, { spawner: fake.spawner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, fake, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

test('TCP ping to a local listener: a reply a second with the connect time and ttl null, closed without data, no process', async () => {
  const target = await listener();
  const { app, fake, base } = await serve();
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&protocol=tcp&port=${target.port}&count=3`);
  const received = await stream.done;
  const events = received.map((entry) => entry.event);
  for (const event of events) assert.ok(Value.Check(PingEvent, event), JSON.stringify(event));
  assert.deepEqual(events[0], { type: 'start', host: '127.0.0.1', resolved_ip: '127.0.0.1' });
  const replies = events.slice(1, -1);
  assert.deepEqual(
    replies.map((event) => [event.type, event.seq, event.ip, event.ttl]),
    [1, 2, 3].map((seq) => ['reply', seq, '127.0.0.1', null]),
  );
  for (const reply of replies)
    assert.ok(Number(reply.time_ms) >= 0 && Number(reply.time_ms) < 100, String(reply.time_ms));
  const gap = (received[3]?.at ?? 0) - (received[2]?.at ?? 0);
  assert.ok(gap > 800 && gap < 1500, `replies 2 and 3 arrived ${gap.toFixed(0)} ms apart`);
  const done = events.at(-1) as Record<string, unknown>;
  assert.deepEqual(
    [done.type, done.alive, done.packets_sent, done.packets_received, done.packet_loss, done.duplicates],
    ['done', true, 3, 3, 0, 0],
  );
  assert.ok(Number(done.min_ms) <= Number(done.avg_ms) && Number(done.avg_ms) <= Number(done.max_ms));
  assert.deepEqual(
    target.connections.map((connection) => connection.bytes),
    [0, 0, 0],
  );
  assert.equal(fake.children.length, 0, 'no tool was run');
  await app.close();
  target.server.close();
});

test('TCP ping to a closed port: each attempt a timeout with reason refused, done not alive: a result, not an error', async () => {
  const port = await closedPort();
  const { app, base } = await serve();
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&protocol=tcp&port=${port}&count=2`);
  const events = (await stream.done).map((entry) => entry.event);
  assert.deepEqual(events.slice(1), [
    { type: 'timeout', seq: 1, reason: 'refused' },
    { type: 'timeout', seq: 2, reason: 'refused' },
    {
      type: 'done',
      alive: false,
      packets_sent: 2,
      packets_received: 0,
      packet_loss: 100,
      min_ms: 0,
      avg_ms: 0,
      max_ms: 0,
      duplicates: 0,
    },
  ]);
  await app.close();
});

test('TCP ping has one name: its log line says tcp_ping, as its metrics label does (the logs said "tcp ping")', async () => {
  const port = await closedPort();
  const log = captureLog();
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' }, { logStream: log.stream });
  const response = await app.inject(`/api/v1/ping?host=127.0.0.1&protocol=tcp&port=${port}&count=1`);
  assert.match(response.body, /"type":"done"/);
  await app.close();
  const ended = log.lines().filter((line) => line.msg === 'stream ended');
  assert.deepEqual(
    ended.map((line) => line.tool),
    [TCP_PING_TOOL.name],
  );
  assert.equal(TCP_PING_TOOL.name, 'tcp_ping');
});

test('TCP ping over IPv6 loopback, default port 443 refused', async () => {
  const { app, base } = await serve();
  const stream = await openStream(`${base}/api/v1/ping?host=%5B::1%5D&protocol=tcp&count=1`);
  const events = (await stream.done).map((entry) => entry.event);
  assert.deepEqual(events[0], { type: 'start', host: '::1', resolved_ip: '::1' });
  assert.deepEqual(events[1], { type: 'timeout', seq: 1, reason: 'refused' });
  await app.close();
});

test('protocol and port: bad values, a port with ICMP, and what ping refuses are 400s before anything runs', async () => {
  const { app } = await serve();
  const plain = await buildTestApp({});
  const cases: [typeof app, string, RegExp][] = [
    [app, '/api/v1/ping?host=127.0.0.1&port=80', /'port': is only for protocol=tcp/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=icmp&port=80', /'port': is only for protocol=tcp/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=udp', /'protocol': must be icmp or tcp/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=tcp&port=0', /'port': must be a whole number from 1 to 65535/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=tcp&port=65536', /'port': must be a whole number from 1 to 65535/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=tcp&port=8e1', /'port'/],
    [app, '/api/v1/ping?host=-f&protocol=tcp', /'host'/],
    [app, '/api/v1/ping?host=127.0.0.1&protocol=tcp&count=11', /'count'/],
    // The target policy holds for TCP as for ICMP.
    [plain, '/api/v1/ping?host=127.0.0.2&protocol=tcp&port=80', /'host'/],
  ];
  for (const [server, url, message] of cases) {
    const response = await server.inject({ url });
    assert.equal(response.statusCode, 400, url);
    assert.match(response.json().error, message, url);
  }
  await app.close();
  await plain.close();
});

test('a TCP ping holds a stream slot like any stream; the client leaving stops the connects at once', async () => {
  const target = await listener();
  const { app, base } = await serve({ STREAM_MAX_PER_CLIENT: '1' });
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&protocol=tcp&port=${target.port}&count=10`);
  await stream.nth(2);
  const refused = await openStream(`${base}/api/v1/mtr?host=127.0.0.1`);
  assert.equal(refused.status, 429);
  assert.match(String((await readJson(refused)).error), /ping\/traceroute\/MTR stream open/);
  stream.abort();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(target.connections.length, 1, 'no connect after the client left');
  const again = await openStream(`${base}/api/v1/ping?host=127.0.0.1&protocol=tcp&port=${target.port}&count=1`);
  assert.equal(again.status, 200, 'the slot came back');
  await again.done;
  await app.close();
  target.server.close();
});
