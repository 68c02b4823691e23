import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildMtrArgs } from '../../../src/probes/mtr/args.ts';

test('mtr: raw output, no lookups by mtr, count rounds, 2 s grace, 30 hops, the family, address last', () => {
  assert.deepEqual(buildMtrArgs({ address: '203.0.113.2', family: 4, count: 10 }), [
    '--raw',
    '-n',
    '-c',
    '10',
    '-G',
    '2',
    '-m',
    '30',
    '-4',
    '203.0.113.2',
  ]);
  assert.deepEqual(
    buildMtrArgs({ address: '2001:db8::1', family: 6, count: 1, maxHops: 5, graceSeconds: 1 }).slice(2),
    ['-c', '1', '-G', '1', '-m', '5', '-6', '2001:db8::1'],
  );
});

test('mtr: anything but a literal address of the family, and counts out of range, are refused', () => {
  for (const address of ['-f', '--raw', '203.0.113.2;id', '203.0.113.2\n', 'example.com', '::1', '']) {
    assert.throws(() => buildMtrArgs({ address, family: 4, count: 1 }), TypeError, JSON.stringify(address));
  }
  assert.throws(() => buildMtrArgs({ address: 'fe80::1%eth0', family: 6, count: 1 }), TypeError);
  for (const count of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => buildMtrArgs({ address: '127.0.0.1', family: 4, count }), RangeError, String(count));
  }
  assert.throws(() => buildMtrArgs({ address: '127.0.0.1', family: 4, count: 1, maxHops: 256 }), RangeError);
});
