// Cancelling an MCP tool call stops the run it stands for (issue 34): the SDK client's AbortSignal
// (a notifications/cancelled), a client that goes away, and a cancellation that reaches another
// process than the one running the call (two apps on one Redis, no session affinity).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../support/app.ts';
import { createFakeSpawner, type FakeChild } from '../support/fake-spawner.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';
import { connect, INITIALIZE, listening, postMcp } from './mcp-client.ts';

if (redisSkipReason) console.log(`# MCP cancellation across processes skipped: ${redisSkipReason}`);

/** A traceroute that prints hop 1 and then nothing, as one into a black hole. */
function stuckTraceroute() {
  return createFakeSpawner((child) => {
    child.stdout('traceroute to 127.0.0.1 (127.0.0.1), 30 hops max, 60 byte packets\n');
    child.stdout(' 1  192.0.2.1  0.047 ms\n');
  });
}

async function waitFor(what: string, condition: () => boolean, ms = 2000) {
  const until = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < until, `${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

const TRACEROUTE_CALL = (id: number) => ({
  id,
  method: 'tools/call',
  params: { name: 'traceroute', arguments: { host: '127.0.0.1' }, _meta: { progressToken: id } },
});

/** Reads an SSE response until a progress notification names a hop: the traceroute runs. */
async function untilFirstHop(response: Response): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/"message":"hop /.test(text)) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the answer ended before hop 1: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return reader;
}

async function sessionOf(base: string): Promise<string> {
  const response = await postMcp(base, INITIALIZE);
  assert.equal(response.status, 200);
  await response.text();
  const session = response.headers.get('mcp-session-id');
  assert.match(session ?? '', /^[0-9a-f]{32}$/);
  return session as string;
}

describe('cancelling a tool call in one process', { timeout: 60_000 }, () => {
  const fake = stuckTraceroute();
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    // One stream per client: the next traceroute starts only if the cancelled one gave its slot back.
    app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', STREAM_MAX_PER_CLIENT: '1' }, { spawner: fake.spawner });
    base = await listening(app);
  });
  after(() => app?.close());

  it('the SDK client’s AbortSignal kills the traceroute and frees its slot; the call rejects', async () => {
    const { client } = await connect(base);
    const abort = new AbortController();
    const messages: string[] = [];
    const call = client.callTool({ name: 'traceroute', arguments: { host: '127.0.0.1' } }, undefined, {
      signal: abort.signal,
      onprogress: ({ message = '' }) => {
        messages.push(message);
        if (message.startsWith('hop ')) abort.abort('enough');
      },
    });
    await assert.rejects(call);
    assert.deepEqual(
      messages.map((message) => message.split(' ')[0]),
      ['start', 'hop'],
    );
    const first = fake.children.at(-1) as FakeChild;
    await waitFor('the traceroute killed', () => first.killedWith !== null);

    const again = new AbortController();
    const next = client.callTool({ name: 'traceroute', arguments: { host: '127.0.0.1' } }, undefined, {
      signal: again.signal,
      onprogress: ({ message = '' }) => {
        if (message.startsWith('hop ')) again.abort('enough');
      },
    });
    await assert.rejects(next);
    assert.equal(fake.children.length, 2, 'the second traceroute started: the slot was free');
    await waitFor('the second traceroute killed', () => fake.children[1]?.killedWith !== null);
    await client.close();
  });

  it('a client that goes away (its answer’s body cancelled) kills the traceroute', async () => {
    const before = fake.children.length;
    const response = await postMcp(base, TRACEROUTE_CALL(1));
    const reader = await untilFirstHop(response);
    const child = fake.children.at(-1) as FakeChild;
    assert.equal(fake.children.length, before + 1);
    assert.equal(child.killedWith, null);
    await reader.cancel();
    await waitFor('the traceroute killed', () => child.killedWith !== null);
  });
});

describe('cancelling across processes (REDIS_URL)', { skip: redisSkipReason, timeout: 60_000 }, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.stop());

  /** Two apps (A runs the traceroute, B gets the cancellation), on one Redis or each on its own. */
  async function twoApps(env: Record<string, string>) {
    const spawnerA = stuckTraceroute();
    const settings = { ALLOW_PRIVATE_TARGETS: 'true', ...env };
    const a = await buildTestApp(settings, { spawner: spawnerA.spawner });
    const b = await buildTestApp(settings, { spawner: stuckTraceroute().spawner });
    return { a, b, baseA: await listening(a), baseB: await listening(b), childrenA: spawnerA.children };
  }

  /** Starts a traceroute on A under session S and request id 7, and cancels it by a notification POSTed to B. */
  async function cancelOnB(apps: Awaited<ReturnType<typeof twoApps>>) {
    const session = await sessionOf(apps.baseA);
    const listed = await postMcp(apps.baseB, { id: 1, method: 'tools/list' }, { 'mcp-session-id': session });
    assert.equal(listed.status, 200);
    assert.match(await listed.text(), /"name":"traceroute"/);

    const running = new AbortController();
    const response = await postMcp(apps.baseA, TRACEROUTE_CALL(7), { 'mcp-session-id': session }, running.signal);
    await untilFirstHop(response);
    const child = apps.childrenA.at(-1) as FakeChild;
    const cancelled = await postMcp(
      apps.baseB,
      { method: 'notifications/cancelled', params: { requestId: 7, reason: 'the user changed their mind' } },
      { 'mcp-session-id': session },
    );
    assert.equal(cancelled.status, 202);
    return { child, running };
  }

  it('a notifications/cancelled POSTed to B kills the traceroute A runs', async () => {
    const apps = await twoApps({ REDIS_URL: redis.url });
    try {
      const { child, running } = await cancelOnB(apps);
      await waitFor('A’s traceroute killed', () => child.killedWith !== null);
      running.abort();
    } finally {
      await apps.a.close();
      await apps.b.close();
    }
  });

  it('without Redis the same notification to B does nothing to A (the in-process twin)', async () => {
    const apps = await twoApps({});
    try {
      const { child, running } = await cancelOnB(apps);
      await sleep(500);
      assert.equal(child.killedWith, null, 'B cannot reach A’s call');
      running.abort();
      await waitFor('A’s traceroute killed once its client went away', () => child.killedWith !== null);
    } finally {
      await apps.a.close();
      await apps.b.close();
    }
  });
});
