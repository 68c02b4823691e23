import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTracerouteArgs } from '../../../src/probes/traceroute/args.ts';

test('defaults: numeric, one probe per hop, 2 s wait, 30 hops, address last', () => {
  assert.deepEqual(buildTracerouteArgs({ address: '203.0.113.2', family: 4 }), [
    '-n',
    '-q',
    '1',
    '-w',
    '2',
    '-m',
    '30',
    '-4',
    '203.0.113.2',
  ]);
});

test('IPv6 with explicit options', () => {
  const args = buildTracerouteArgs({ address: '2001:db8::1', family: 6, maxHops: 5, waitSeconds: 1.5, queries: 3 });
  assert.deepEqual(args, ['-n', '-q', '3', '-w', '1.5', '-m', '5', '-6', '2001:db8::1']);
});

test('rejects anything that is not a literal address of the family', () => {
  for (const address of ['-f', '-I', '203.0.113.2;id', '203.0.113.2\n', 'a\nb', 'example.com', '::1', '']) {
    assert.throws(() => buildTracerouteArgs({ address, family: 4 }), TypeError, JSON.stringify(address));
  }
  assert.throws(() => buildTracerouteArgs({ address: '127.0.0.1', family: 6 }), TypeError);
});

test('rejects out-of-range hops, queries and waits', () => {
  const base = { address: '127.0.0.1', family: 4 as const };
  for (const maxHops of [0, 256, 2.5]) assert.throws(() => buildTracerouteArgs({ ...base, maxHops }), RangeError);
  for (const queries of [0, 11, 1.5]) assert.throws(() => buildTracerouteArgs({ ...base, queries }), RangeError);
  for (const waitSeconds of [0, -1, 61, Number.NaN]) {
    assert.throws(() => buildTracerouteArgs({ ...base, waitSeconds }), RangeError);
  }
});

test('protocols: udp is traceroute default (no flag), icmp -I, tcp -T -p PORT (default 80), first', () => {
  const base = ['-n', '-q', '1', '-w', '2', '-m', '30', '-4', '203.0.113.2'];
  const opts = { address: '203.0.113.2', family: 4 } as const;
  assert.deepEqual(buildTracerouteArgs({ ...opts, protocol: 'udp' }), base);
  assert.deepEqual(buildTracerouteArgs({ ...opts, protocol: 'icmp' }), ['-I', ...base]);
  assert.deepEqual(buildTracerouteArgs({ ...opts, protocol: 'tcp' }), ['-T', '-p', '80', ...base]);
  assert.deepEqual(buildTracerouteArgs({ ...opts, protocol: 'tcp', port: 443 }), ['-T', '-p', '443', ...base]);
  assert.throws(() => buildTracerouteArgs({ ...opts, protocol: 'udp', port: 53 }), RangeError);
  assert.throws(() => buildTracerouteArgs({ ...opts, protocol: 'icmp', port: 53 }), RangeError);
  for (const port of [0, 65536, 1.5]) {
    assert.throws(() => buildTracerouteArgs({ ...opts, protocol: 'tcp', port }), RangeError, String(port));
  }
  assert.throws(() => buildTracerouteArgs({ ...opts, protocol: '-U' as 'udp' }), RangeError);
});
