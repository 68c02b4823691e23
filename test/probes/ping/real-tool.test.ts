import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { buildPingArgs } from '../../../src/probes/ping/args.ts';
import { type PingLineEvent, parsePingLine } from '../../../src/probes/ping/parse.ts';
import { summarisePing } from '../../../src/probes/ping/summary.ts';
import { forEachLine } from '../../../src/probes/spawn/read-lines.ts';
import { spawnTool } from '../../../src/probes/spawn/spawner.ts';
import { buildTracerouteArgs } from '../../../src/probes/traceroute/args.ts';
import { parseTracerouteLine, type TracerouteLine } from '../../../src/probes/traceroute/parse.ts';
import { summariseTraceroute } from '../../../src/probes/traceroute/summary.ts';

// Real tools on loopback only. Skipped, visibly, where they are not installed.
const missing = (tool: string): string | false =>
  spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0 ? false : `${tool} is not installed`;

async function run<T>(command: string, args: string[], parse: (line: string) => T | null): Promise<T[]> {
  const child = spawnTool(command, args);
  const events: T[] = [];
  const collect = (line: string) => {
    const event = parse(line);
    if (event !== null) events.push(event);
  };
  await Promise.all([forEachLine(child.stdout, collect), forEachLine(child.stderr, collect)]);
  return events;
}

test('real ping -c 2 to 127.0.0.1 with the built arguments: two replies', { skip: missing('ping') }, async () => {
  const events = await run<PingLineEvent>(
    'ping',
    buildPingArgs({ address: '127.0.0.1', family: 4, count: 2 }),
    parsePingLine,
  );
  assert.deepEqual(
    events.filter((event) => event.type === 'reply').map((event) => event.seq),
    [1, 2],
  );
  const done = summarisePing(events);
  assert.equal(done.alive, true);
  assert.equal(done.packets_sent, 2);
  assert.equal(done.packets_received, 2);
});

test('real traceroute to 127.0.0.1 with the built arguments: one hop, reached', {
  skip: missing('traceroute'),
}, async () => {
  const lines = await run<TracerouteLine>(
    'traceroute',
    buildTracerouteArgs({ address: '127.0.0.1', family: 4, waitSeconds: 1 }),
    parseTracerouteLine,
  );
  assert.deepEqual(summariseTraceroute(lines), { total_hops: 1, reached: true });
});
