import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildPingArgs } from '../../../src/probes/ping/args.ts';

test('defaults: numeric, -O, one-second interval and timeout, address last', () => {
  assert.deepEqual(buildPingArgs({ address: '127.0.0.1', family: 4, count: 4 }), [
    '-n',
    '-O',
    '-c',
    '4',
    '-i',
    '1',
    '-W',
    '1',
    '-4',
    '127.0.0.1',
  ]);
});

test('IPv6, fractional interval and timeout', () => {
  const args = buildPingArgs({ address: '::1', family: 6, count: 4, intervalSeconds: 0.5, timeoutSeconds: 0.5 });
  assert.deepEqual(args, ['-n', '-O', '-c', '4', '-i', '0.5', '-W', '0.5', '-6', '::1']);
});

test('rejects anything that is not a literal address of the family', () => {
  const bad = [
    ['-f', 4],
    ['--flood', 4],
    ['-4', 4],
    ['127.0.0.1;reboot', 4],
    ['127.0.0.1 -f', 4],
    ['127.0.0.1\n-f', 4],
    ['127.0.0.1\n', 4],
    ['example.com', 4],
    ['', 4],
    ['::1', 4],
    ['127.0.0.1', 6],
    ['fe80::1%eth0', 6],
    ['-::1', 6],
  ] as const;
  for (const [address, family] of bad) {
    assert.throws(() => buildPingArgs({ address, family, count: 1 }), TypeError, JSON.stringify(address));
  }
});

test('rejects counts, intervals and timeouts ping would misread', () => {
  const base = { address: '127.0.0.1', family: 4 as const };
  for (const count of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => buildPingArgs({ ...base, count }), RangeError, `count ${count}`);
  }
  assert.throws(() => buildPingArgs({ ...base, count: 2, intervalSeconds: 0.1 }), RangeError);
  assert.throws(() => buildPingArgs({ ...base, count: 2, timeoutSeconds: 0 }), RangeError);
});

test('no hard deadline: no -w, so no deadline rule to satisfy', () => {
  assert.deepEqual(buildPingArgs({ address: '::1', family: 6, count: 10 }), [
    '-n',
    '-O',
    '-c',
    '10',
    '-i',
    '1',
    '-W',
    '1',
    '-6',
    '::1',
  ]);
  // A timeout longer than the interval is fine here: nothing makes ping send more than COUNT.
  const args = buildPingArgs({ address: '127.0.0.1', family: 4, count: 3, timeoutSeconds: 2 });
  assert.equal(args.includes('-w'), false);
  assert.throws(() => buildPingArgs({ address: '-f', family: 4, count: 1 }), TypeError);
});
