import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { capturedExitCode, loadCapturedOutputs } from '../../support/captured-output.ts';
import { createFakeSpawner, replayInHalfLines } from '../../support/fake-spawner.ts';
import { parseSseBody } from '../../support/sse-client.ts';

const captures = loadCapturedOutputs('traceroute');

async function run(query: string, scenario: string) {
  const capture = captures.find((entry) => entry.scenario === scenario);
  assert.ok(capture, scenario);
  const fake = createFakeSpawner(replayInHalfLines(capture, capturedExitCode('traceroute', scenario)));
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const response = await app.inject({ url: `/api/v1/traceroute?${query}` });
  await app.close();
  return {
    response,
    args: fake.children[0]?.args,
    events: response.statusCode === 200 ? parseSseBody(response.body) : [],
  };
}

test('protocol=icmp runs traceroute -I, protocol=tcp -T -p PORT (80 by default); the captured runs stream as UDP ones do', async () => {
  const icmp = await run('host=203.0.113.2&protocol=icmp', 'ipv4-three-hops-icmp');
  assert.deepEqual(icmp.args?.slice(0, 2), ['-I', '-n']);
  assert.deepEqual(icmp.events.at(-1), { type: 'done', total_hops: 3, reached: true });
  const tcp = await run('host=203.0.113.2&protocol=tcp', 'ipv4-three-hops-tcp');
  assert.deepEqual(tcp.args?.slice(0, 4), ['-T', '-p', '80', '-n']);
  assert.deepEqual(
    tcp.events.slice(1, -1).map((event) => event.ip),
    ['192.0.2.1', '198.51.100.2', '203.0.113.2'],
  );
  const tcp443 = await run('host=203.0.113.2&protocol=tcp&port=443', 'ipv4-three-hops-tcp');
  assert.deepEqual(tcp443.args?.slice(0, 3), ['-T', '-p', '443']);
  const udp = await run('host=203.0.113.2', 'ipv4-three-hops');
  assert.equal(udp.args?.[0], '-n', 'UDP is traceroute default: no method flag');
});

test('a server without raw sockets: -T ends in an error event that says traceroute lacks the privileges', async () => {
  const { events } = await run('host=127.0.0.1&protocol=tcp', 'tcp-unprivileged');
  assert.deepEqual(events.slice(1), [
    { type: 'error', message: 'traceroute failed: You do not have enough privileges to use this traceroute method.' },
  ]);
});

test('bad protocol or port, and a port without tcp, are 400s before anything runs', async () => {
  for (const [query, message] of [
    ['host=127.0.0.1&protocol=sctp', /'protocol': must be udp, icmp or tcp/],
    ['host=127.0.0.1&port=53', /'port': is only for protocol=tcp/],
    ['host=127.0.0.1&protocol=icmp&port=53', /'port': is only for protocol=tcp/],
    ['host=127.0.0.1&protocol=tcp&port=0', /'port': must be a whole number from 1 to 65535/],
    ['host=127.0.0.1&protocol=tcp&port=99999', /'port': must be a whole number from 1 to 65535/],
  ] as const) {
    const { response, args } = await run(query, 'ipv4-loopback');
    assert.equal(response.statusCode, 400, query);
    assert.match(response.json().error, message, query);
    assert.equal(args, undefined, `${query}: nothing ran`);
  }
});
