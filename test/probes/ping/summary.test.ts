import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PingLineEvent } from '../../../src/probes/ping/parse.ts';
import { type PingSummary, summarisePing, unansweredSeqs } from '../../../src/probes/ping/summary.ts';

const reply = (seq: number, time_ms: number, duplicate = false): PingLineEvent =>
  duplicate
    ? { type: 'reply', seq, ip: '192.0.2.1', time_ms, ttl: 64, duplicate: true }
    : { type: 'reply', seq, ip: '192.0.2.1', time_ms, ttl: 64 };
const timeout = (seq: number): PingLineEvent => ({ type: 'timeout', seq });
const statistics = (transmitted: number, received: number): PingLineEvent => ({
  type: 'statistics',
  transmitted,
  received,
  duplicates: 0,
  errors: 0,
  loss_percent: 0,
});
const unreachable = (seq: number): PingLineEvent => ({
  type: 'unreachable',
  seq,
  from: '192.0.2.1',
  message: 'Destination Host Unreachable',
});
const none = { min_ms: 0, avg_ms: 0, max_ms: 0 };

test('summarisePing table', () => {
  const cases: [string, PingLineEvent[], PingSummary][] = [
    [
      'nothing at all (name error): nothing came back',
      [],
      { alive: false, packets_sent: 0, packets_received: 0, packet_loss: 100, ...none },
    ],
    [
      'all replies',
      [reply(1, 1), reply(2, 2), reply(3, 6)],
      { alive: true, packets_sent: 3, packets_received: 3, packet_loss: 0, min_ms: 1, avg_ms: 3, max_ms: 6 },
    ],
    [
      'a DUP! counts once and its time is ignored',
      [reply(1, 1), reply(1, 9, true), reply(2, 3)],
      { alive: true, packets_sent: 2, packets_received: 2, packet_loss: 0, min_ms: 1, avg_ms: 2, max_ms: 3 },
    ],
    [
      'unmarked broadcast duplicate counts once',
      [reply(1, 1), reply(1, 9), statistics(1, 1)],
      { alive: true, packets_sent: 1, packets_received: 1, packet_loss: 0, min_ms: 1, avg_ms: 1, max_ms: 1 },
    ],
    [
      'timeouts only: alive false, times 0',
      [timeout(1), timeout(2)],
      { alive: false, packets_sent: 2, packets_received: 0, packet_loss: 100, ...none },
    ],
    [
      'the silent last request is known only from the statistics line',
      [reply(1, 1), timeout(2), statistics(3, 1)],
      { alive: true, packets_sent: 3, packets_received: 1, packet_loss: 66.67, min_ms: 1, avg_ms: 1, max_ms: 1 },
    ],
    [
      'a late reply after its timeout line counts as received',
      [timeout(1), reply(1, 1500), reply(2, 1)],
      { alive: true, packets_sent: 2, packets_received: 2, packet_loss: 0, min_ms: 1, avg_ms: 750.5, max_ms: 1500 },
    ],
    [
      'unreachable and its following timeout line are one lost request',
      [unreachable(1), timeout(1), reply(2, 2)],
      { alive: true, packets_sent: 2, packets_received: 1, packet_loss: 50, min_ms: 2, avg_ms: 2, max_ms: 2 },
    ],
    [
      'avg is rounded to microseconds',
      [reply(1, 0.1), reply(2, 0.1), reply(3, 0.2)],
      { alive: true, packets_sent: 3, packets_received: 3, packet_loss: 0, min_ms: 0.1, avg_ms: 0.133, max_ms: 0.2 },
    ],
  ];
  for (const [name, events, expected] of cases) assert.deepEqual(summarisePing(events), expected, name);
});

test('unansweredSeqs lists the requests that never got a line', () => {
  assert.deepEqual(unansweredSeqs([timeout(1), timeout(2), statistics(3, 0)]), [3]);
  assert.deepEqual(unansweredSeqs([reply(1, 1), statistics(4, 1)]), [2, 3, 4]);
  assert.deepEqual(unansweredSeqs([reply(1, 1)]), []);
});
