// Three nodes as three service processes started as an operator starts them, sharing one Redis on
// loopback: node a and node b inside network namespaces with their own routes to a target host in
// a third (test/support/mesh-netns.sh), node c on the host. Their clocks are off by minutes (b six
// behind, c six ahead). The test talks to c alone: a and b are reached only through the mesh.
// What must hold: traceroutes that differ hop by hop, a node killed mid-probe, Redis restarted
// mid-measurement, and 100 measurements at once with every event counted once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.ts';
import { type ListeningProcess, startListeningProcess } from '../support/listening-process.ts';
import { netnsUnavailable } from '../support/netns-available.ts';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';
import { serviceArguments } from '../support/start-command.ts';

const support = (name: string) => fileURLToPath(new URL(`../support/${name}`, import.meta.url));
const prefix = `mx${process.pid}-`;
const TARGET = '203.0.113.10';
const HEARTBEAT_SECONDS = 1;
const SIX_MINUTES = 6 * 60_000;

function unavailable(): string | false {
  if (redisSkipReason) return redisSkipReason;
  const reason = netnsUnavailable(`${prefix}probe`, ['ping', 'traceroute']);
  if (reason) return reason;
  // Topologies of earlier runs killed before their teardown.
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const match of listed.matchAll(/^mx(\d+)-a\b/gm)) {
    try {
      process.kill(Number(match[1]), 0);
    } catch {
      spawnSync('sh', [support('mesh-netns.sh'), 'down', `mx${match[1]}-`]);
    }
  }
  return false;
}
const skip = unavailable();
if (skip) console.log(`# mesh process tests skipped: ${skip}`);

type Event = Record<string, unknown> & { type: string };

describe('a mesh of three processes, two in namespaces', { skip }, () => {
  let redis: TestRedis;
  let dir: string;
  const relays: ListeningProcess[] = [];
  const nodes = new Map<string, ListeningProcess>();
  let c = '';

  async function startNode(name: string, env: Record<string, string>, namespace?: string) {
    const args = [...serviceArguments()];
    const command = namespace ? 'ip' : process.execPath;
    const node = await startListeningProcess(
      command,
      namespace ? ['netns', 'exec', namespace, process.execPath, ...args] : args,
      {
        ...NO_DOWNLOADS_ENV,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        DATA_DIR: path.join(dir, name),
        DNS_SERVERS: '127.0.0.1:9',
        METRICS_PORT: '0',
        NODE_NAME: name,
        MESH_SECRET: 'a-shared-secret-for-the-three-test-nodes',
        NODE_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        NODE_TIMEOUT_SECONDS: '4',
        ALLOW_PRIVATE_TARGETS: 'true',
        RATE_LIMITS: 'public=100000/1000000',
        MEASUREMENT_LIMITS: 'public=10',
        STREAM_MAX_CONCURRENT: '1000',
        STREAM_MAX_PER_CLIENT: '1000',
        ...env,
      },
      'pipe',
      /listening on (http:\/\/[^\s/]+)/,
    );
    nodes.set(name, node);
    return node;
  }

  const clockOffset = (ms: number) => ({
    NODE_OPTIONS: `--import=${support('clock-offset.ts')}`,
    CLOCK_OFFSET_MS: String(ms),
  });

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netinfo-mesh-'));
    const socket = path.join(dir, 'redis.sock');
    redis = await startRedis({ persistIn: dir, unixSocket: socket });
    const up = spawnSync('sh', [support('mesh-netns.sh'), 'up', prefix], { encoding: 'utf8' });
    assert.equal(up.status, 0, up.stderr);
    for (const name of ['a', 'b']) {
      const port = await freePort();
      relays.push(
        await startListeningProcess(
          'ip',
          ['netns', 'exec', `${prefix}${name}`, process.execPath, support('unix-relay.ts'), String(port), socket],
          {},
        ),
      );
      const env = { REDIS_URL: `redis://127.0.0.1:${port}`, NODE_LOCATION: name === 'a' ? 'country=DE' : 'country=US' };
      await startNode(name, name === 'b' ? { ...env, ...clockOffset(-SIX_MINUTES) } : env, `${prefix}${name}`);
    }
    c = (await startNode('c', { REDIS_URL: redis.url, NODE_LOCATION: 'country=JP', ...clockOffset(SIX_MINUTES) })).url;
  });

  after(async () => {
    for (const node of nodes.values()) node.child.kill('SIGKILL');
    for (const relay of relays) relay.child.kill('SIGKILL');
    await redis?.stop();
    spawnSync('sh', [support('mesh-netns.sh'), 'down', prefix]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function measure(body: object): Promise<{ id: string; probes: { node: string }[] }> {
    const response = await fetch(`${c}/api/v1/measurements`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { id: string; probes: { node: string }[] };
    assert.equal(response.status, 202, JSON.stringify(answer));
    return answer;
  }

  /** Reads the events stream to its end, each event with when it arrived; `onEvent` may act mid-stream. */
  async function events(id: string, onEvent: (event: Event) => void = () => {}) {
    const response = await fetch(`${c}/api/v1/measurements/${id}/events`);
    assert.equal(response.status, 200, response.status === 200 ? '' : await response.text());
    const received: { id: string; event: Event; at: number }[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const [idLine, dataLine] = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const event = JSON.parse((dataLine ?? '').slice(6)) as Event;
        received.push({ id: (idLine ?? '').slice(4), event, at: performance.now() });
        onEvent(event);
      }
    }
    return received;
  }

  const of = <T extends { event: Event }>(received: T[], node: string) =>
    received.filter((entry) => entry.event.node === node);

  test('the three nodes see each other, whatever their clocks say', async () => {
    for (let i = 0; i < 50; i++) {
      const { nodes: listed } = (await (await fetch(`${c}/api/v1/nodes`)).json()) as { nodes: { name: string }[] };
      if (listed.length === 3) break;
      await sleep(100);
    }
    const { nodes: listed } = (await (await fetch(`${c}/api/v1/nodes`)).json()) as {
      nodes: { name: string; location: { country: string } }[];
    };
    assert.deepEqual(
      listed.map((node) => `${node.name}:${node.location.country}`),
      ['a:DE', 'b:US', 'c:JP'],
    );
  });

  test('traceroutes from a and b differ hop by hop, as their routes do', async () => {
    const measurement = await measure({
      type: 'traceroute',
      target: TARGET,
      options: { protocol: 'icmp' },
      locations: [{ node: 'a' }, { node: 'b' }],
    });
    const received = await events(measurement.id);
    const route = (node: string) =>
      of(received, node)
        .filter((entry) => entry.event.type === 'hop')
        .map((entry) => `${entry.event.hop}:${entry.event.ip}`)
        .filter((hop, index, all) => all.indexOf(hop) === index);
    assert.deepEqual(route('a'), ['1:10.1.0.1', `2:${TARGET}`]);
    assert.deepEqual(route('b'), ['1:10.2.0.1', '2:10.4.0.2', `3:${TARGET}`]);
    assert.equal(of(received, 'a').at(-1)?.event.type, 'done');
    assert.equal(of(received, 'b').at(-1)?.event.type, 'done');
    assert.deepEqual(received.at(-1)?.event, { type: 'measurement_done' });
  });

  test('Redis restarted mid-measurement: every probe goes on, no event lost or repeated', async () => {
    const count = 6;
    const measurement = await measure({
      type: 'ping',
      target: '127.0.0.1',
      options: { count },
      locations: [{ node: 'a' }, { node: 'b' }, { node: 'c' }],
    });
    let restarted: Promise<void> | undefined;
    const received = await events(measurement.id, (event) => {
      if (restarted === undefined && event.type === 'reply' && event.seq === 2) {
        restarted = (async () => {
          await redis.stop();
          await sleep(1000);
          await redis.start();
        })();
      }
    });
    await restarted;
    for (const node of ['a', 'b', 'c']) {
      const own = of(received, node).map((entry) =>
        entry.event.type === 'reply' ? `reply:${entry.event.seq}` : entry.event.type,
      );
      assert.deepEqual(own, ['start', ...Array.from({ length: count }, (_, i) => `reply:${i + 1}`), 'done'], node);
    }
    assert.equal(new Set(received.map((entry) => entry.id)).size, received.length, 'no event twice');
    assert.deepEqual(received.at(-1)?.event, { type: 'measurement_done' });
  });

  test('100 measurements at once across the three nodes: every event once', async () => {
    const created = await Promise.all(
      Array.from({ length: 100 }, () =>
        measure({
          type: 'ping',
          target: '127.0.0.1',
          // Nothing listens on port 9 of any node's loopback: each connect is refused at once.
          options: { protocol: 'tcp', port: 9, count: 2 },
          locations: [{ limit: 3 }],
        }),
      ),
    );
    const all = await Promise.all(created.map((measurement) => events(measurement.id)));
    for (const received of all) {
      for (const node of ['a', 'b', 'c']) {
        assert.deepEqual(
          of(received, node).map((entry) => entry.event.type),
          ['start', 'timeout', 'timeout', 'done'],
          node,
        );
      }
      assert.equal(received.length, 13);
      assert.equal(new Set(received.map((entry) => entry.id)).size, 13);
      assert.deepEqual(received.at(-1)?.event, { type: 'measurement_done' });
    }
  });

  test('a node killed mid-probe: its probe fails within two heartbeats, the others finish', async () => {
    const measurement = await measure({
      type: 'ping',
      target: TARGET,
      options: { count: 8 },
      locations: [{ node: 'a' }, { node: 'b' }],
    });
    let killedAt = 0;
    const received = await events(measurement.id, (event) => {
      if (killedAt === 0 && event.node === 'a' && event.type === 'reply') {
        nodes.get('a')?.child.kill('SIGKILL');
        killedAt = performance.now();
      }
    });
    const failure = of(received, 'a').at(-1);
    assert.deepEqual(failure?.event, { type: 'error', node: 'a', message: 'node a went silent during the probe' });
    const noticedMs = (failure?.at ?? 0) - killedAt;
    console.log(
      `# node killed mid-probe: its probe failed ${Math.round(noticedMs)} ms later (heartbeat ${HEARTBEAT_SECONDS * 1000} ms)`,
    );
    assert.ok(noticedMs <= 2 * HEARTBEAT_SECONDS * 1000 + 500, `noticed in ${noticedMs} ms`);
    assert.equal(of(received, 'b').at(-1)?.event.type, 'done');
    const state = (await (await fetch(`${c}/api/v1/measurements/${measurement.id}`)).json()) as {
      status: string;
      probes: { node: string; status: string; error?: string }[];
    };
    assert.equal(state.status, 'finished');
    assert.deepEqual(
      state.probes.map((probe) => `${probe.node}:${probe.status}`),
      ['a:failed', 'b:finished'],
    );
  });
});
