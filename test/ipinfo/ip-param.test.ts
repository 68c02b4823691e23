import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIpParameter } from '../../src/ipinfo/ip-param.ts';

test('addresses asked about: the normal form, or why not (each case says why)', () => {
  const cases: [string, ReturnType<typeof parseIpParameter>, string][] = [
    ['8.8.8.8', { ok: true, ip: '8.8.8.8' }, 'a dotted quad as it is'],
    ['2001:0DB8:0:0::1', { ok: true, ip: '2001:db8::1' }, 'IPv6 in its RFC 5952 form, as /json shows a client'],
    [
      '::ffff:8.8.8.8',
      { ok: true, ip: '8.8.8.8', mappedFrom: '::ffff:8.8.8.8' },
      'IPv4-mapped: about the IPv4 address, saying so',
    ],
    [
      '::FFFF:0808:0808',
      { ok: true, ip: '8.8.8.8', mappedFrom: '::FFFF:0808:0808' },
      'mapped in hex: the same address, kept as sent',
    ],
    ['::8.8.8.8', { ok: true, ip: '::808:808' }, 'IPv4-compatible (deprecated) is an IPv6 address, not mapped'],
    [
      '010.1.1.1',
      { ok: false, reason: 'leading zeros are refused (010.1.1.1 is ambiguous: octal or decimal)' },
      'not octal 8.1.1.1, not 10.1.1.1',
    ],
    [
      '1.1.1.01',
      { ok: false, reason: 'leading zeros are refused (010.1.1.1 is ambiguous: octal or decimal)' },
      'in any octet',
    ],
    [
      'fe80::1%eth0',
      { ok: false, reason: 'an IPv6 zone index (%...) is refused' },
      'a zone names an interface of another host',
    ],
    [
      '127.1',
      { ok: false, reason: 'not an IPv4 address (dotted quad, no leading zeros) or an IPv6 address (without a %zone)' },
      'inet_aton shorthand',
    ],
    [
      '0x7f.0.0.1',
      { ok: false, reason: 'not an IPv4 address (dotted quad, no leading zeros) or an IPv6 address (without a %zone)' },
      'hex octets',
    ],
    [
      '8.8.8.8/24',
      { ok: false, reason: 'not an IPv4 address (dotted quad, no leading zeros) or an IPv6 address (without a %zone)' },
      'a network, not an address',
    ],
    ['', { ok: false, reason: 'empty' }, 'nothing'],
    [
      '1'.repeat(46),
      { ok: false, reason: 'longer than 45 characters, the longest form of an address' },
      'longer than any address',
    ],
  ];
  for (const [text, expected, why] of cases) assert.deepEqual(parseIpParameter(text), expected, `${text}: ${why}`);
});
