import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePingLine } from '../../../src/probes/ping/parse.ts';
import { createPingProgress, type PingProgressEvent } from '../../../src/probes/ping/progress.ts';

function run(count: number, lines: string[]) {
  const progress = createPingProgress(count);
  const events: PingProgressEvent[] = [];
  for (const line of lines) {
    const parsed = parsePingLine(line);
    if (parsed) events.push(...progress.accept(parsed));
  }
  return { events, closing: progress.finish(), progress };
}

const STATS = (sent: number, received: number, loss: string) =>
  `${sent} packets transmitted, ${received} received, ${loss}% packet loss, time 2003ms`;

test('a reply after its "no answer yet" line is sent as a late reply and counts as received, as in ping', () => {
  const { events, closing } = run(3, [
    'PING 192.0.2.9 (192.0.2.9) 56(84) bytes of data.',
    '64 bytes from 192.0.2.9: icmp_seq=1 ttl=60 time=20.1 ms',
    'no answer yet for icmp_seq=2',
    '64 bytes from 192.0.2.9: icmp_seq=2 ttl=60 time=1520 ms',
    '64 bytes from 192.0.2.9: icmp_seq=3 ttl=60 time=19.9 ms',
    STATS(3, 3, '0'),
  ]);
  assert.deepEqual(events, [
    { type: 'reply', seq: 1, ip: '192.0.2.9', time_ms: 20.1, ttl: 60 },
    { type: 'timeout', seq: 2, reason: 'no_reply' },
    { type: 'reply', seq: 2, ip: '192.0.2.9', time_ms: 1520, ttl: 60, late: true },
    { type: 'reply', seq: 3, ip: '192.0.2.9', time_ms: 19.9, ttl: 60 },
  ]);
  assert.deepEqual(closing, [
    {
      type: 'done',
      alive: true,
      packets_sent: 3,
      packets_received: 3,
      packet_loss: 0,
      min_ms: 19.9,
      avg_ms: 520,
      max_ms: 1520,
      duplicates: 0,
    },
  ]);
});

test('seqs above count are ignored, and so are seq 0 and repeated timeouts', () => {
  const { events, closing } = run(2, [
    '64 bytes from 192.0.2.9: icmp_seq=1 ttl=60 time=1 ms',
    'no answer yet for icmp_seq=2',
    'no answer yet for icmp_seq=2',
    '64 bytes from 192.0.2.9: icmp_seq=3 ttl=60 time=1 ms',
    'no answer yet for icmp_seq=0',
    STATS(2, 1, '50'),
  ]);
  assert.deepEqual(
    events.map((event) => `${event.type}:${'seq' in event ? event.seq : ''}`),
    ['reply:1', 'timeout:2'],
  );
  assert.equal(closing?.at(-1)?.type, 'done');
});

test('without the statistics line there is no done: ping failed, and its complaint is kept', () => {
  const { events, closing, progress } = run(4, ['ping: connect: Network is unreachable']);
  assert.deepEqual(events, []);
  assert.equal(closing, null);
  assert.equal(progress.toolError, 'connect: Network is unreachable');
});
