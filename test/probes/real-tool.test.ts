import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { createPingSession } from '../../src/probes/ping/session.ts';
import { runTool } from '../../src/probes/spawn/run-tool.ts';
import { spawnTool } from '../../src/probes/spawn/spawner.ts';
import type { ProbeSession } from '../../src/probes/stream/probe-stream.ts';
import { createTracerouteSession } from '../../src/probes/traceroute/session.ts';

// Real tools on loopback only, through the production session (arguments, line splitting, parser,
// progress) without the HTTP stream around it. Skipped, visibly, where they are not installed.
const missing = (tool: string): string | false =>
  spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0 ? false : `${tool} is not installed`;

/** Runs the session's real tool to its end: every event it emitted, then its closing events. */
async function runSession(makeSession: (emit: (event: object) => void) => ProbeSession): Promise<object[]> {
  const events: object[] = [];
  const session = makeSession((event) => events.push(event));
  const outcome = await runTool(spawnTool, session.command, session.args, {
    signal: new AbortController().signal,
    onStdout: (chunk) => session.stdout(chunk),
    onStderr: (chunk) => session.stderr(chunk),
  });
  assert.equal(outcome.kind, 'exited');
  if (outcome.kind !== 'exited') return events;
  const end = await session.finish(outcome);
  assert.ok('events' in end, JSON.stringify(end));
  return [...events, ...end.events];
}

test('real ping -c 2 to 127.0.0.1 through the ping session: two replies', { skip: missing('ping') }, async () => {
  const events = (await runSession((emit) =>
    createPingSession({ address: '127.0.0.1', family: 4, count: 2, emit }),
  )) as { type: string; seq?: number; [field: string]: unknown }[];
  assert.deepEqual(
    events.filter((event) => event.type === 'reply').map((event) => event.seq),
    [1, 2],
  );
  const done = events.at(-1);
  assert.equal(done?.type, 'done');
  assert.equal(done?.alive, true);
  assert.equal(done?.packets_sent, 2);
  assert.equal(done?.packets_received, 2);
});

test('real traceroute to 127.0.0.1 through the traceroute session: one hop, reached', {
  skip: missing('traceroute'),
}, async () => {
  const events = await runSession((emit) =>
    createTracerouteSession({ address: '127.0.0.1', family: 4, hostnameOf: async (ip) => ip, emit }),
  );
  assert.deepEqual(events.at(-1), { type: 'done', total_hops: 1, reached: true });
});
