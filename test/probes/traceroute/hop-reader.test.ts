import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHopReader } from '../../../src/probes/traceroute/hop-reader.ts';

test('the unfinished line is given out once it holds its one probe, and skipped when its newline comes', () => {
  const reader = createHopReader(1);
  assert.deepEqual(reader.push('traceroute to 203.0.113.2 (203.0.113.2), 30 hops max, 60 byte packets'), []);
  assert.equal(reader.takeCompleteHop(), null, 'the header is not a hop');
  assert.deepEqual(reader.push('\n 1  192.0.2.1  0.047 ms'), [
    { type: 'header', host: '203.0.113.2', resolved_ip: '203.0.113.2', max_hops: 30 },
  ]);
  assert.deepEqual(reader.takeCompleteHop(), { type: 'hop', hop: 1, ip: '192.0.2.1', rtt_ms: 0.047 });
  assert.equal(reader.takeCompleteHop(), null, 'given out once');
  assert.deepEqual(reader.push('\n 2  *'), [], 'hop 1 completed by its newline is not repeated');
  assert.deepEqual(reader.takeCompleteHop(), { type: 'hop', hop: 2, ip: null, rtt_ms: null });
  assert.deepEqual(reader.push('\n'), []);
  assert.deepEqual(reader.end(), []);
});

test('an unfinished probe is not a hop yet: half an address, a time without its unit', () => {
  for (const partial of [
    ' 1  192.0.2',
    ' 1  192.0.2.1',
    ' 1  192.0.2.1  0.04',
    ' 1  192.0.2.1  0.047 m',
    ' 12',
    ' 12 ',
  ]) {
    const reader = createHopReader(1);
    reader.push(partial);
    assert.equal(reader.takeCompleteHop(), null, partial);
  }
});

test('with several probes per hop the line is complete only with all of them', () => {
  const reader = createHopReader(3);
  reader.push(' 1  192.0.2.1  0.046 ms  0.015 ms');
  assert.equal(reader.takeCompleteHop(), null);
  reader.push('  0.014 ms');
  assert.equal(reader.takeCompleteHop()?.probes?.length, 3);
});

test('lines that end normally still come out of push and end', () => {
  const reader = createHopReader(1);
  assert.deepEqual(
    reader.push(' 1  192.0.2.1  0.05 ms\n 2  198.51.100.2  0.06 ms\n').map((line) => line.type === 'hop' && line.hop),
    [1, 2],
  );
  reader.push(' 3  203.0.113.2  0.07 ms');
  assert.deepEqual(
    reader.end().map((line) => line.type === 'hop' && line.hop),
    [3],
  );
});
