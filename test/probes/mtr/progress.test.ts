import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMtrLine } from '../../../src/probes/mtr/parse.ts';
import { createMtrProgress, type MtrHopStats } from '../../../src/probes/mtr/progress.ts';

/** Feeds raw lines one by one; returns, per line, the hops it made the stream send (as `hop:sent/received/loss`). */
function feed(lines: string[], destination = '203.0.113.2') {
  const progress = createMtrProgress({ destination, maxHops: 30 });
  const perLine = lines.map((text) => {
    const line = parseMtrLine(text);
    assert.ok(line, text);
    return progress.accept(line).map(short);
  });
  return { progress, perLine };
}

const short = (hop: MtrHopStats) => `${hop.hop}:${hop.sent}/${hop.received}/${hop.loss}`;

test('parse: every raw line kind, the reply time in microseconds, older replies without a sequence number', () => {
  assert.deepEqual(parseMtrLine('x 2 33002'), { type: 'sent', hop: 2, seq: 33002 });
  assert.deepEqual(parseMtrLine('h 0 2001:db8:1::1'), { type: 'host', hop: 0, ip: '2001:db8:1::1' });
  assert.deepEqual(parseMtrLine('p 2 84 33002'), { type: 'reply', hop: 2, usec: 84, seq: 33002 });
  assert.deepEqual(parseMtrLine('p 2 84'), { type: 'reply', hop: 2, usec: 84 });
  assert.deepEqual(parseMtrLine('d 1 r1.example'), { type: 'name', hop: 1, name: 'r1.example' });
  assert.deepEqual(parseMtrLine('mtr: Failed to resolve host: x'), {
    type: 'error',
    message: 'Failed to resolve host: x',
  });
  for (const line of ['', 'x', 'x a 1', 'p 1 -5 2', 'Start: 2026', 'h 0']) assert.equal(parseMtrLine(line), null, line);
});

test('a hop is sent once a round: with its answer, or when its next probe goes out unanswered; never for a probe alone', () => {
  const { perLine } = feed([
    'x 0 1', // hop 1's probe out: awaited, nothing to send
    'h 0 192.0.2.1',
    'p 0 100 1', // answered: hop 1 sent
    'x 1 2', // hop 2 probed; silent so far
    'x 0 3', // round 2: hop 1's probe out, nothing settled changed
    'p 0 300 3',
    'x 1 4', // hop 2's first probe is lost now
    'x 0 5',
    'x 1 6', // and its second
  ]);
  assert.deepEqual(perLine, [[], [], ['1:1/1/0'], [], [], ['1:2/2/0'], ['2:2/0/100'], [], ['2:3/0/100']]);
});

test('loss leaves out the probe still awaited; a late reply still counts as received', () => {
  const { perLine, progress } = feed([
    'x 0 1',
    'h 0 192.0.2.1',
    'p 0 100 1',
    'x 0 2',
    'x 0 3', // probe 2 lost: 1 of 2 settled
    'p 0 500 2', // ...but its answer arrives late
  ]);
  assert.deepEqual(perLine.slice(4), [['1:3/1/50'], ['1:3/2/0']]);
  // After exit nothing is awaited: probe 3 is lost.
  const final = progress.finish(0);
  assert.deepEqual(final?.hops.map(short), ['1:3/2/33.33']);
  assert.deepEqual(
    final?.hops.map(({ last_ms, best_ms, worst_ms, avg_ms, stdev_ms }) => [
      last_ms,
      best_ms,
      worst_ms,
      avg_ms,
      stdev_ms,
    ]),
    [[0.5, 0.1, 0.5, 0.3, 0.283]],
  );
});

test('hops shown as mtr shows them: up to the destination, else one past the deepest hop that answered', () => {
  // Beyond the destination: mtr probes one hop further in its first round; that hop is never shown.
  const reached = feed(['x 0 1', 'h 0 203.0.113.2', 'p 0 50 1', 'x 1 2', 'h 1 203.0.113.2', 'p 1 60 2']);
  assert.deepEqual(reached.perLine.flat(), ['1:1/1/0']);
  assert.deepEqual(reached.progress.finish(0), {
    reached: true,
    hops: [
      {
        hop: 1,
        ip: '203.0.113.2',
        sent: 1,
        received: 1,
        loss: 0,
        last_ms: 0.05,
        avg_ms: 0.05,
        best_ms: 0.05,
        worst_ms: 0.05,
        stdev_ms: 0,
      },
    ],
  });
  // Never reached: hop 1 answers, hops 2..5 are silent; only hop 2 is shown.
  const lines = ['x 0 1', 'h 0 192.0.2.1', 'p 0 50 1', 'x 1 2', 'x 2 3', 'x 3 4', 'x 4 5'];
  const unreached = feed([...lines, 'x 0 6', 'p 0 50 6', 'x 1 7', 'x 2 8', 'x 3 9', 'x 4 10']);
  assert.deepEqual(unreached.perLine.flat(), ['1:1/1/0', '1:2/2/0', '2:2/0/100']);
  const final = unreached.progress.finish(0);
  assert.deepEqual(
    final?.hops.map((hop) => [hop.hop, hop.ip, hop.loss, hop.last_ms]),
    [
      [1, '192.0.2.1', 0, 0.05],
      [2, null, 100, null],
    ],
  );
  assert.equal(final?.reached, false);
});

test('a hop that changes address is sent again with the new one', () => {
  const { perLine, progress } = feed(['x 0 1', 'h 0 192.0.2.1', 'p 0 50 1', 'h 0 192.0.2.9']);
  assert.deepEqual(perLine.flat(), ['1:1/1/0', '1:1/1/0']);
  assert.equal(progress.finish(0)?.hops[0]?.ip, '192.0.2.9');
});

test('no done when mtr failed: a non-zero exit, or not one probe sent (its complaint is kept)', () => {
  const { progress } = feed(['x 0 1', 'h 0 203.0.113.2', 'p 0 50 1']);
  assert.equal(progress.finish(1), null);
  const failed = feed(['mtr: Failed to resolve host: ::1: Address family for hostname not supported']);
  assert.equal(failed.progress.finish(0), null);
  assert.equal(failed.progress.toolError, 'Failed to resolve host: ::1: Address family for hostname not supported');
});

test('duplicate and unknown replies, and hops beyond maxHops, change nothing', () => {
  const { perLine } = feed(['x 0 1', 'h 0 192.0.2.1', 'p 0 50 1', 'p 0 70 1', 'p 0 70 99', 'x 40 2', 'p 40 5 2']);
  assert.deepEqual(perLine, [[], [], ['1:1/1/0'], [], [], [], []]);
});
