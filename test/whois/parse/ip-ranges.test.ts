import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefixToRange, rangeToPrefixes } from '../../../src/whois/parse/ip-ranges.ts';

test('prefixToRange: full, abbreviated (LACNIC) and IPv6 prefixes', () => {
  assert.deepEqual(prefixToRange('200.57.128/19'), {
    first: '200.57.128.0',
    last: '200.57.159.255',
    cidr: '200.57.128.0/19',
  });
  assert.deepEqual(prefixToRange('10.1.2.3/8'), { first: '10.0.0.0', last: '10.255.255.255', cidr: '10.0.0.0/8' });
  assert.deepEqual(prefixToRange('2a00:2381:FFFF::/64'), {
    first: '2a00:2381:ffff::',
    last: '2a00:2381:ffff:0:ffff:ffff:ffff:ffff',
    cidr: '2a00:2381:ffff::/64',
  });
  assert.deepEqual(prefixToRange('0.0.0.0/0'), { first: '0.0.0.0', last: '255.255.255.255', cidr: '0.0.0.0/0' });
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '2001:db8::/129', 'x/8', '10.0.0.0/8/8', '1.2.3.4.5/8']) {
    assert.equal(prefixToRange(bad), null, bad);
  }
});

test('rangeToPrefixes: the fewest prefixes covering the range exactly', () => {
  assert.deepEqual(rangeToPrefixes('196.11.239.0', '196.11.246.255'), [
    '196.11.239.0/24',
    '196.11.240.0/22',
    '196.11.244.0/23',
    '196.11.246.0/24',
  ]);
  assert.deepEqual(rangeToPrefixes('0.0.0.0', '255.255.255.255'), ['0.0.0.0/0']);
  assert.deepEqual(rangeToPrefixes('192.0.2.7', '192.0.2.7'), ['192.0.2.7/32']);
  assert.deepEqual(rangeToPrefixes('2001:db8::', '2001:db8::1:ffff'), ['2001:db8::/111']);
  // Zero-padded octets are decimal, as registries mean them (not octal, as inet_aton would read them).
  assert.deepEqual(rangeToPrefixes('192.012.000.000', '192.012.001.255'), ['192.12.0.0/23']);
  assert.deepEqual(rangeToPrefixes('10.0.0.9', '10.0.0.1'), []);
  assert.deepEqual(rangeToPrefixes('10.0.0.0', '2001:db8::'), []);
});
