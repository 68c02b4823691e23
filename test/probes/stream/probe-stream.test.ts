import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventStream } from '../../../src/http/sse.ts';
import { createPingSession } from '../../../src/probes/ping/session.ts';
import { PING_TOOL, TCP_PING_TOOL } from '../../../src/probes/ping/tool.ts';
import { createSpawnTurns } from '../../../src/probes/spawn/spawn-turns.ts';
import { spawnTool } from '../../../src/probes/spawn/spawner.ts';
import { type ProbeSession, runProbeStream } from '../../../src/probes/stream/probe-stream.ts';
import { probeTimeLimitMs } from '../../../src/probes/stream/probe-tool.ts';
import { createFakeSpawner, type FakeChild } from '../../support/fake-spawner.ts';

function fakeStream() {
  const events: Record<string, unknown>[] = [];
  const gone = new AbortController();
  let closed = 0;
  const stream: EventStream = {
    id: '0123456789abcdef',
    clientGone: gone.signal,
    send: (event) => {
      if (closed === 0) events.push(event as Record<string, unknown>);
    },
    sendJson: (json) => {
      if (closed === 0) events.push(JSON.parse(json));
    },
    close: () => {
      closed++;
    },
  };
  return { stream, events, leave: () => gone.abort(), closed: () => closed };
}

function pingSession(stream: EventStream): ProbeSession {
  return createPingSession({ address: '127.0.0.1', family: 4, count: 4, emit: stream.send });
}

/** ping's name, and its time limit for 4 requests unless a test shortens it. */
function pingTool(timeLimitMs = probeTimeLimitMs(PING_TOOL, 4)) {
  return { name: PING_TOOL.name, timeLimitMs };
}

const START = { type: 'start', host: '127.0.0.1', resolved_ip: '127.0.0.1' };
const REPLY_LINE = '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.040 ms\n';

test('time limit: the child is killed with SIGKILL and the stream ends with an error event', async () => {
  const fake = createFakeSpawner((child) => child.stdout(REPLY_LINE));
  const { stream, events, closed } = fakeStream();
  const end = await runProbeStream(pingSession(stream), {
    tool: pingTool(80),
    stream,
    spawner: fake.spawner,
    shutdownSignal: new AbortController().signal,
    spawnTurns: createSpawnTurns(),
    startEvent: START,
  });
  assert.equal(end, 'time-limit');
  assert.equal(fake.children[0]?.killedWith, 'SIGKILL');
  assert.deepEqual(events, [
    START,
    { type: 'reply', seq: 1, ip: '127.0.0.1', time_ms: 0.04, ttl: 64 },
    { type: 'error', message: 'ping did not finish within 0.08 seconds and was stopped.' },
  ]);
  assert.equal(closed(), 1);
});

test('shutdown: the child is killed and the stream says why', async () => {
  const shutdown = new AbortController();
  const fake = createFakeSpawner(() => setTimeout(() => shutdown.abort(), 10));
  const { stream, events } = fakeStream();
  const end = await runProbeStream(pingSession(stream), {
    tool: pingTool(),
    stream,
    spawner: fake.spawner,
    shutdownSignal: shutdown.signal,
    spawnTurns: createSpawnTurns(),
    startEvent: START,
  });
  assert.equal(end, 'shutdown');
  assert.equal(fake.children[0]?.killedWith, 'SIGKILL');
  assert.deepEqual(events.at(-1), {
    type: 'error',
    message: 'The server is shutting down; the stream was stopped before it finished.',
  });
});

test('the client going away kills the child; nothing more is written', async () => {
  let child: FakeChild | undefined;
  const { stream, events, leave } = fakeStream();
  const fake = createFakeSpawner((spawned) => {
    child = spawned;
    setTimeout(leave, 10);
  });
  const end = await runProbeStream(pingSession(stream), {
    tool: pingTool(),
    stream,
    spawner: fake.spawner,
    shutdownSignal: new AbortController().signal,
    spawnTurns: createSpawnTurns(),
    startEvent: START,
  });
  assert.equal(end, 'client-gone');
  assert.equal(child?.killedWith, 'SIGKILL');
  assert.deepEqual(events, [START]);
});

test('a tool that is not installed: start, then one error event naming it', async () => {
  const { stream, events } = fakeStream();
  const end = await runProbeStream(pingSession(stream), {
    tool: pingTool(),
    stream,
    spawner: (command, args) => spawnTool(`/nonexistent/netinfo-test/${command}`, args),
    shutdownSignal: new AbortController().signal,
    spawnTurns: createSpawnTurns(),
    startEvent: START,
  });
  assert.equal(end, 'not-started');
  assert.deepEqual(events, [
    START,
    { type: 'error', message: 'ping is not installed on this server, so it cannot be run.' },
  ]);
});

test('a tool that exits without a result: its complaint, else its exit status', async () => {
  for (const [script, message] of [
    [
      (child: FakeChild) => {
        child.stderr('ping: connect: Network is unreachable\n');
        child.exit(2);
      },
      'ping failed: connect: Network is unreachable',
    ],
    [(child: FakeChild) => child.exit(2), 'ping exited with code 2 without giving a result.'],
  ] as const) {
    const { stream, events } = fakeStream();
    const end = await runProbeStream(pingSession(stream), {
      tool: pingTool(),
      stream,
      spawner: createFakeSpawner(script).spawner,
      shutdownSignal: new AbortController().signal,
      spawnTurns: createSpawnTurns(),
      startEvent: START,
    });
    assert.equal(end, 'failed');
    assert.deepEqual(events, [START, { type: 'error', message }]);
  }
});

test('an in-process probe (TCP ping): its events, then done; stopped by the time limit or shutdown with the same errors, no process', async () => {
  const fake = createFakeSpawner();
  const context = (stream: EventStream, timeLimitMs: number, shutdownSignal = new AbortController().signal) => ({
    tool: { name: TCP_PING_TOOL.name, timeLimitMs },
    stream,
    spawner: fake.spawner,
    shutdownSignal,
    spawnTurns: createSpawnTurns(),
    startEvent: START,
  });
  // Emits one event, then waits until stopped (as a connect into a black hole would).
  const hanging = (stream: EventStream) => {
    let stoppedWith: AbortSignal | undefined;
    return {
      session: {
        run: (signal: AbortSignal) => {
          stoppedWith = signal;
          stream.send({ type: 'timeout', seq: 1, reason: 'timeout' });
          return new Promise<{ events: object[] }>((resolve) =>
            signal.addEventListener('abort', () => resolve({ events: [] })),
          );
        },
      },
      stopped: () => stoppedWith?.aborted,
    };
  };

  const limited = fakeStream();
  const run = hanging(limited.stream);
  assert.equal(await runProbeStream(run.session, context(limited.stream, 50)), 'time-limit');
  assert.equal(run.stopped(), true);
  assert.deepEqual(limited.events, [
    START,
    { type: 'timeout', seq: 1, reason: 'timeout' },
    { type: 'error', message: 'tcp_ping did not finish within 0.05 seconds and was stopped.' },
  ]);

  const closing = fakeStream();
  const shutdown = new AbortController();
  const second = hanging(closing.stream);
  const ended = runProbeStream(second.session, context(closing.stream, 60_000, shutdown.signal));
  setTimeout(() => shutdown.abort(), 20);
  assert.equal(await ended, 'shutdown');
  assert.match(String(closing.events.at(-1)?.message), /shutting down/);

  const done = fakeStream();
  const finished = await runProbeStream(
    { run: async () => ({ events: [{ type: 'done' }] }) },
    context(done.stream, 1000),
  );
  assert.equal(finished, 'done');
  assert.deepEqual(done.events, [START, { type: 'done' }]);
  assert.equal(done.closed(), 1);
  assert.equal(fake.children.length, 0);
});
