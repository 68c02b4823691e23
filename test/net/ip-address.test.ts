import assert from 'node:assert/strict';
import { isIPv4 } from 'node:net';
import { test } from 'node:test';
import { cidrOf, formatCidr, parseCidr } from '../../src/net/cidr.ts';
import { dottedQuadValue, ipv6Prefix64, normaliseIp, parseIp, reverseName } from '../../src/net/ip-address.ts';

test('parseIp: numeric keys', () => {
  assert.deepEqual(parseIp('0.0.0.0'), { version: 4, value: 0 });
  assert.deepEqual(parseIp('255.255.255.255'), { version: 4, value: 0xffffffff });
  assert.deepEqual(parseIp('::1'), { version: 6, value: 1n });
  assert.deepEqual(parseIp('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), { version: 6, value: (1n << 128n) - 1n });
  assert.deepEqual(parseIp('::ffff:1.2.3.4'), { version: 6, value: 0xffff01020304n });
  assert.equal(parseIp('1.2.3'), null);
  assert.equal(parseIp('fe80::1%eth0'), null);
});

test('normaliseIp: one spelling per address', () => {
  const cases: [string, string | null][] = [
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // RFC 5952: first of equal zero runs
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group is not compressed
    ['0:0:0:0:0:0:0:0', '::'],
    ['1::', '1::'],
    ['::ffff:192.0.2.1', '192.0.2.1'], // mapped -> IPv4
    ['::ffff:c000:201', '192.0.2.1'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'], // NAT64 stays IPv6: it is a different address
    ['192.0.2.1', '192.0.2.1'],
    ['example.com', null],
  ];
  for (const [input, expected] of cases) assert.equal(normaliseIp(input), expected, input);
});

test('ipv6Prefix64', () => {
  assert.equal(ipv6Prefix64('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(ipv6Prefix64('2001:db8::1'), '2001:db8::/64');
  assert.equal(ipv6Prefix64('192.0.2.1'), null);
  assert.equal(ipv6Prefix64('::ffff:192.0.2.1'), null);
});

test('reverseName', () => {
  assert.equal(reverseName('192.0.2.1'), '1.2.0.192.in-addr.arpa');
  assert.equal(reverseName('::ffff:192.0.2.1'), '1.2.0.192.in-addr.arpa');
  assert.equal(
    reverseName('2001:db8::567:89ab'),
    'b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa', // RFC 3596 example
  );
  assert.equal(reverseName('nope'), null);
});

test('parseCidr', () => {
  const ok = (text: string) => {
    const parsed = parseCidr(text);
    assert.ok(parsed.ok, text);
    return parsed.cidr;
  };
  assert.deepEqual(ok('0.0.0.0/0'), { version: 4, first: 0, last: 0xffffffff, prefixLength: 0 });
  assert.deepEqual(ok('192.0.2.7'), { version: 4, first: 0xc0000207, last: 0xc0000207, prefixLength: 32 });
  assert.equal(ok('::/0').last, (1n << 128n) - 1n);
  assert.equal(formatCidr(ok('2001:DB8::/32')), '2001:db8::/32');
  assert.deepEqual(parseCidr('10.0.0.1/8'), { ok: false, reason: 'host bits set' });
  assert.deepEqual(parseCidr('10.0.0.0/33'), { ok: false, reason: 'prefix length over 32' });
  assert.deepEqual(parseCidr('10.0.0.0/08'), { ok: false, reason: 'bad prefix length' });
  assert.deepEqual(parseCidr('10.0.0/8'), { ok: false, reason: 'not an IP address' });
  const v4 = parseIp('203.0.113.77');
  assert.ok(v4);
  assert.equal(formatCidr(cidrOf(v4, 24)), '203.0.113.0/24');
});

test('dottedQuadValue accepts exactly what node:net isIPv4 accepts, with the right value', () => {
  const edge = ['0.0.0.0', '255.255.255.255', '256.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4.', '.1.2.3.4', '1..2.3'];
  const more = ['1.2.3.4 ', '1.2.3.04', '10.0.0.10', '100.200.250.255', '1.2.3.-4', '1.2.3.4.5', '1e1.2.3.4', ''];
  // Random strings over digits and dots (a fixed seed), where the tricky cases live.
  let state = 12345;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const generated = Array.from({ length: 50_000 }, () => {
    const length = 5 + (random() % 12);
    return Array.from({ length }, () => '0123456789.'[random() % 11]).join('');
  });
  // And dotted shapes: 3-5 groups, octets up to 299, one in eight with a leading zero.
  const octet = () => `${random() % 8 === 0 ? '0' : ''}${random() % 300}`;
  const shaped = Array.from({ length: 20_000 }, () => Array.from({ length: 3 + (random() % 3) }, octet).join('.'));
  let accepted = 0;
  for (const text of [...edge, ...more, ...generated, ...shaped]) {
    const value = dottedQuadValue(text);
    assert.equal(value >= 0, isIPv4(text), text);
    if (value < 0) continue;
    accepted++;
    const expected = text.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    assert.equal(value, expected, text);
  }
  assert.ok(accepted > 1000, `the sample holds enough valid addresses (${accepted})`);
});
