// Measurements across three nodes of one mesh, each a whole app in this process sharing one Redis:
// what the API promises a caller (who runs, what it costs, the events in one resumable stream, a
// node that refuses, a forged job). The same across separate processes and namespaces, with nodes
// killed: mesh-processes.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import { signJob } from '../../src/mesh/job.ts';
import { createRedisMeshStore } from '../../src/mesh/redis-store.ts';
import { createRedisClient } from '../../src/scale/redis.ts';
import { buildTestApp } from '../support/app.ts';
import { countingListener } from '../support/counting-listener.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { captureLog } from '../support/log-capture.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';

if (redisSkipReason) console.log(`# mesh measurement tests skipped: ${redisSkipReason}`);

const SECRET = 'the-test-mesh-secret-0123456789abcdef';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

describe('measurements from three nodes sharing Redis', { skip: redisSkipReason }, () => {
  let redis: TestRedis;
  let dns: FakeDnsServer;
  let target: Awaited<ReturnType<typeof countingListener>>;
  let forbidden: Awaited<ReturnType<typeof countingListener>>;
  const apps: FastifyInstance[] = [];
  const logs = [captureLog(), captureLog(), captureLog()];
  const base: string[] = [];

  before(async () => {
    redis = await startRedis();
    dns = await startFakeDnsServer(
      recordsHandler([{ type: 'A', name: 'www.example.test', ttl: 300, data: '192.0.2.80' }]),
    );
    target = await countingListener('127.0.0.1');
    forbidden = await countingListener('127.0.0.2');
    const nodes: Record<string, string>[] = [
      {
        NODE_NAME: 'n1',
        NODE_LOCATION: 'country=DE,city=Frankfurt',
        NODE_TAGS: 'lab,eu',
        ALLOW_PRIVATE_TARGETS: 'true',
      },
      { NODE_NAME: 'n2', NODE_LOCATION: 'country=US,city=Ashburn', NODE_TAGS: 'lab', ALLOW_PRIVATE_TARGETS: 'true' },
      // n3 keeps the default target policy: it refuses loopback and private targets.
      { NODE_NAME: 'n3', NODE_LOCATION: 'country=JP' },
    ];
    for (const [i, node] of nodes.entries()) {
      const app = await buildTestApp(
        {
          ...node,
          REDIS_URL: redis.url,
          MESH_SECRET: SECRET,
          NODE_HEARTBEAT_SECONDS: '1',
          NODE_TIMEOUT_SECONDS: '3',
          TRUST_PROXY: 'loopback',
          RATE_LIMITS: 'public=20/100',
          DNS_SERVERS: `127.0.0.1:${dns.server.port}`,
        },
        { logStream: logs[i]?.stream },
      );
      await app.listen({ host: '127.0.0.1', port: 0 });
      apps.push(app);
      base.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    }
  });
  after(async () => {
    for (const app of apps) await app.close();
    target.server.close();
    forbidden.server.close();
    await dns.close();
    await redis.stop();
  });

  async function call(
    node: number,
    method: string,
    path: string,
    body?: object,
    caller = '192.0.2.1',
  ): Promise<Answer> {
    const response = await fetch(`${base[node]}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': caller },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : JSON.parse(text),
      headers: Object.fromEntries(response.headers) as http.IncomingHttpHeaders,
    };
  }

  /** Every event of a measurement, read with EventSource from `node` until measurement_done. */
  async function readAll(node: number, id: string, caller = '192.0.2.9') {
    const events: { id: string; event: Record<string, unknown> }[] = [];
    const source = new EventSource(`${base[node]}/api/v1/measurements/${id}/events`, {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('x-forwarded-for', caller);
        return fetch(input, { ...init, headers });
      },
    });
    await new Promise<void>((resolve, reject) => {
      source.onmessage = (message) => {
        const event = JSON.parse(message.data);
        events.push({ id: message.lastEventId, event });
        if (event.type === 'measurement_done') resolve();
      };
      source.onerror = (error) => reject(new Error(`EventSource: ${error.message ?? error.code}`));
      setTimeout(() => reject(new Error(`no measurement_done; got ${JSON.stringify(events)}`)), 20_000).unref();
    }).finally(() => source.close());
    return events;
  }

  test('every node lists the three, with their locations and tags', async () => {
    for (const node of [0, 1, 2]) {
      const { body } = await call(node, 'GET', '/api/v1/nodes');
      const nodes = body.nodes as { name: string; location: object; tags: string[] }[];
      assert.deepEqual(
        nodes.map((entry) => [entry.name, entry.location, entry.tags]),
        [
          ['n1', { country: 'DE', city: 'Frankfurt', continent: 'EU' }, ['lab', 'eu']],
          ['n2', { country: 'US', city: 'Ashburn', continent: 'NA' }, ['lab']],
          ['n3', { country: 'JP', continent: 'AS' }, []],
        ],
      );
    }
  });

  test("a TCP ping from two nodes: each node's events with its name, in one stream any node serves", async () => {
    const before = target.connects();
    const created = await call(0, 'POST', '/api/v1/measurements', {
      type: 'ping',
      target: '127.0.0.1',
      options: { protocol: 'tcp', port: target.port, count: 2 },
      locations: [{ tag: 'lab', limit: 2 }],
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.id as string;
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.deepEqual((created.body.probes as { node: string }[]).map((probe) => probe.node).sort(), ['n1', 'n2']);
    const events = await readAll(2, id);
    for (const node of ['n1', 'n2']) {
      const own = events.filter((entry) => entry.event.node === node).map((entry) => entry.event.type);
      assert.deepEqual(own, ['start', 'reply', 'reply', 'done'], node);
    }
    assert.deepEqual(events.at(-1)?.event, { type: 'measurement_done' });
    assert.equal(events.length, 9);
    assert.equal(new Set(events.map((entry) => entry.id)).size, 9, 'every event has its own id');
    assert.equal(target.connects() - before, 4, 'two nodes, two connects each: nothing ran twice');
    const state = await call(1, 'GET', `/api/v1/measurements/${id}`);
    assert.equal(state.body.status, 'finished');
    const probes = state.body.probes as { node: string; status: string; result: { packets_received: number } }[];
    for (const probe of probes) {
      assert.equal(probe.status, 'finished');
      assert.equal(probe.result.packets_received, 2);
    }
  });

  test('a DNS query from every node: one result event each, the route answer', async () => {
    const created = await call(1, 'POST', '/api/v1/measurements', {
      type: 'dns',
      target: 'www.example.test',
      options: { record_type: 'A' },
      locations: [{ limit: 3 }],
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const events = await readAll(0, created.body.id as string);
    const results = events.filter((entry) => entry.event.type === 'result');
    assert.deepEqual(results.map((entry) => entry.event.node).sort(), ['n1', 'n2', 'n3']);
    const direct = await call(0, 'GET', '/api/v1/dns?host=www.example.test&record_type=A');
    for (const { event } of results) {
      const answer = event.result as { records: { value: string }[] };
      assert.deepEqual(
        answer.records.map((record) => record.value),
        (direct.body.records as { value: string }[]).map((record) => record.value),
      );
    }
  });

  test('a measurement costs one request per probe, all or nothing', async () => {
    const caller = '198.51.100.7';
    const probe = { type: 'dns', target: 'www.example.test', options: { record_type: 'A' }, locations: [{ limit: 3 }] };
    const first = await call(2, 'POST', '/api/v1/measurements', probe, caller);
    assert.equal(first.status, 202);
    assert.equal(first.headers['x-ratelimit-remaining'], '17', 'three probes, three requests of 20');
    for (let i = 0; i < 5; i++)
      assert.equal((await call(i % 3, 'POST', '/api/v1/measurements', probe, caller)).status, 202);
    const dnsQueries = dns.queries.length;
    // 2 remain: a measurement of 3 is refused whole, and nothing runs.
    const refused = await call(0, 'POST', '/api/v1/measurements', probe, caller);
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.match(refused.body.error as string, /3 probes/);
    await sleep(1500);
    assert.equal(dns.queries.length, dnsQueries, 'no probe of the refused measurement ran');
    const one = await call(0, 'POST', '/api/v1/measurements', { ...probe, locations: [{ node: 'n1' }] }, caller);
    assert.equal(one.status, 202);
    assert.equal(one.headers['x-ratelimit-remaining'], '1');
  });

  test("bad requests are the caller's 400s, naming the field; nothing is charged beyond one", async () => {
    const cases: [object, RegExp][] = [
      [{ type: 'ping', target: '127.0.0.1', options: { count: 11 } }, /'options.count' in the body: must be <= 10/],
      [
        { type: 'ping', target: '127.0.0.1', options: { size: 1 } },
        /'options.size' is not an option of ping \(its options: count, family, protocol, port\)/,
      ],
      [{ type: 'dns', target: 'example.test' }, /dns needs the option 'options.record_type'/],
      [
        { type: 'dns', target: 'example.test', options: { record_type: 'AAA' } },
        /'options.record_type' in the body: must be one of A, AAAA/,
      ],
      [
        { type: 'whois', target: 'x' },
        /'type' in the body: must be one of ping, traceroute, mtr, dns, http, ssl, blacklist, mail/,
      ],
      [{ type: 'ping', target: 'x', limit: 6 }, /'limit' 6 is above the 5 probes a public caller may have/],
      [{ type: 'ping', target: 'x', locations: [{ country: 'FR' }] }, /locations\[0\] \(country=FR\) matches no node/],
      [
        { type: 'ping', target: 'x', locations: [{ cuntry: 'FR' }] },
        /field 'locations\[0\].cuntry' this endpoint does not take/,
      ],
      [{ type: 'ping' }, /lacks the field 'target'/],
      [{ type: 'mtr', target: '-f' }, /Invalid field 'target' in the body: .*give a host name or an IP address/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(0, 'POST', '/api/v1/measurements', body, '198.51.100.20');
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.body.error as string, message);
    }
    const last = await call(0, 'POST', '/api/v1/measurements', {}, '198.51.100.20');
    assert.equal(last.headers['x-ratelimit-remaining'], String(20 - cases.length - 1));
    assert.equal((await call(0, 'GET', '/api/v1/measurements/0123456789abcdef0123456789abcdef')).status, 404);
    assert.equal((await call(0, 'GET', '/api/v1/measurements/nope/events')).status, 400);
  });

  test('a node applies its own target policy: n3 refuses 127.0.0.2, says why, and nothing reaches it', async () => {
    const created = await call(0, 'POST', '/api/v1/measurements', {
      type: 'ping',
      target: '127.0.0.2',
      options: { protocol: 'tcp', port: forbidden.port, count: 1 },
      locations: [{ node: 'n3' }],
    });
    assert.equal(created.status, 202);
    const events = await readAll(0, created.body.id as string);
    assert.equal(events[0]?.event.type, 'error');
    assert.equal(events[0]?.event.node, 'n3');
    assert.equal(events[0]?.event.status, 400);
    assert.match(events[0]?.event.message as string, /host/);
    const state = await call(0, 'GET', `/api/v1/measurements/${created.body.id}`);
    const [probe] = state.body.probes as { status: string; http_status: number }[];
    assert.equal(probe?.status, 'failed');
    assert.equal(probe?.http_status, 400);
    assert.equal(forbidden.connects(), 0, 'nothing reached the forbidden address');
  });

  test('a reconnect with Last-Event-ID resumes after it; after measurement_done it is a 204, and nothing runs again', async () => {
    const before = target.connects();
    const created = await call(0, 'POST', '/api/v1/measurements', {
      type: 'ping',
      target: '127.0.0.1',
      options: { protocol: 'tcp', port: target.port, count: 1 },
      locations: [{ node: 'n2' }],
    });
    const id = created.body.id as string;
    const all = await readAll(1, id);
    const resumed = await rawEvents(2, id, all[1]?.id as string);
    assert.equal(resumed.status, 200);
    assert.deepEqual(
      resumed.ids,
      all.slice(2).map((entry) => entry.id),
    );
    const done = await rawEvents(2, id, all.at(-1)?.id as string);
    assert.equal(done.status, 204);
    // A careless EventSource, never closed: it reconnects after the end, gets the 204 and stops.
    const exchanges: number[] = [];
    const source = new EventSource(`${base[0]}/api/v1/measurements/${id}/events`, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        exchanges.push(response.status);
        return response;
      },
    });
    await sleep(5000);
    assert.equal(source.readyState, EventSource.CLOSED);
    source.close();
    assert.deepEqual(exchanges, [200, 204]);
    assert.equal(target.connects() - before, 1, 'the probe ran once');
  });

  async function rawEvents(node: number, id: string, lastEventId: string) {
    const url = new URL(`${base[node]}/api/v1/measurements/${id}/events`);
    return await new Promise<{ status: number; ids: string[] }>((resolve, reject) => {
      http
        .get(url, { headers: { 'last-event-id': lastEventId } }, (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              ids: [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1] as string),
            }),
          );
        })
        .on('error', reject);
    });
  }

  test('a job not signed with the mesh key is not run, and the probe fails when no node takes it', async () => {
    const client = createRedisClient(redis.url);
    await once(client, 'ready');
    const prefix = `netinfo:mesh:${createHash('sha256').update(SECRET).digest('hex').slice(0, 12)}:`;
    const store = createRedisMeshStore(client, {
      prefix,
      heartbeatMs: 1000,
      nodeTimeoutMs: 3000,
      ttlMs: 60_000,
      log: { warn() {}, error() {} },
    });
    const before = target.connects();
    const id = 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0';
    const job = {
      measurement: id,
      probe: 0,
      node: 'n2',
      type: 'ping' as const,
      target: '127.0.0.1',
      options: { protocol: 'tcp', port: String(target.port), count: '1' },
      client_ip: '192.0.2.1',
      origin: 'n1',
    };
    await store.create(
      {
        id,
        type: 'ping',
        target: '127.0.0.1',
        options: job.options,
        created_at: new Date().toISOString(),
        probes: [{ node: 'n2', location: {}, asn: null }],
      },
      [{ node: 'n2', job: signJob(job, `${SECRET}-but-not-quite`) }],
    );
    const events = await readAll(0, id);
    assert.deepEqual(events[0]?.event, {
      type: 'error',
      node: 'n2',
      message: 'node n2 did not take the probe within 3 s',
    });
    assert.equal(target.connects(), before, 'the forged job did not run');
    assert.ok(
      logs[1]?.lines().some((line) => line.msg === 'mesh: refused a job not signed by the mesh or not for this node'),
      'n2 logged the refusal',
    );
    await store.close();
    client.disconnect();
  });

  test('HEAD of a stream answers its headers at once; a Redis that does not answer is a 503, not a hang', async () => {
    const created = await call(0, 'POST', '/api/v1/measurements', {
      type: 'dns',
      target: 'www.example.test',
      options: { record_type: 'A' },
    });
    const head = await fetch(`${base[1]}/api/v1/measurements/${created.body.id}/events`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    redis.freeze();
    try {
      const started = performance.now();
      const refused = await call(
        0,
        'POST',
        '/api/v1/measurements',
        { type: 'dns', target: 'x.test', options: { record_type: 'A' }, locations: [{ limit: 2 }] },
        '198.51.100.30',
      );
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.match(refused.body.error as string, /Redis is not answering/);
      assert.equal((await call(1, 'GET', `/api/v1/measurements/${created.body.id}`)).status, 503);
      assert.ok(performance.now() - started < 5000);
    } finally {
      redis.thaw();
    }
  });
});
