import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifySpecialAddress, embeddedIpv4, isBogon, isForbiddenTarget } from '../../src/net/special-addresses.ts';

type Case = { ip: string; kind: string | null; range?: string; why: string };

const cases: Case[] = [
  // IPv4 edges: first and last address of each range, and the first address outside it.
  { ip: '0.0.0.0', kind: 'unspecified', range: '0.0.0.0/32', why: '/32 inside 0/8 wins' },
  { ip: '0.0.0.1', kind: 'this-network', range: '0.0.0.0/8', why: 'rest of 0/8' },
  { ip: '0.255.255.255', kind: 'this-network', why: 'last of 0/8' },
  { ip: '1.0.0.0', kind: null, why: 'first public address' },
  { ip: '9.255.255.255', kind: null, why: 'just below 10/8' },
  { ip: '10.0.0.0', kind: 'private', range: '10.0.0.0/8', why: 'first of 10/8' },
  { ip: '10.255.255.255', kind: 'private', why: 'last of 10/8' },
  { ip: '11.0.0.0', kind: null, why: 'just above 10/8' },
  { ip: '100.63.255.255', kind: null, why: 'just below shared space' },
  { ip: '100.64.0.0', kind: 'cgnat', range: '100.64.0.0/10', why: 'RFC 6598 first' },
  { ip: '100.127.255.255', kind: 'cgnat', why: 'RFC 6598 last' },
  { ip: '100.128.0.0', kind: null, why: 'just above shared space' },
  { ip: '100.100.100.200', kind: 'metadata', why: 'Alibaba metadata inside CGNAT space' },
  { ip: '127.0.0.1', kind: 'loopback', range: '127.0.0.0/8', why: 'usual loopback' },
  { ip: '127.255.255.255', kind: 'loopback', why: 'last of 127/8' },
  { ip: '169.254.0.0', kind: 'link-local', why: 'first link-local' },
  { ip: '169.254.169.254', kind: 'metadata', range: '169.254.169.254/32', why: 'cloud metadata is its own kind' },
  { ip: '169.254.169.253', kind: 'link-local', why: 'neighbour of metadata is plain link-local' },
  { ip: '172.15.255.255', kind: null, why: 'just below 172.16/12' },
  { ip: '172.16.0.0', kind: 'private', range: '172.16.0.0/12', why: 'first of 172.16/12' },
  { ip: '172.31.255.255', kind: 'private', why: 'last of 172.16/12' },
  { ip: '172.32.0.0', kind: null, why: 'just above 172.16/12' },
  { ip: '192.0.0.8', kind: 'protocol-assignment', range: '192.0.0.8/32', why: 'IPv4 dummy address' },
  { ip: '192.0.0.9', kind: 'anycast', range: '192.0.0.9/32', why: 'PCP anycast: special but globally reachable' },
  { ip: '192.0.0.255', kind: 'protocol-assignment', range: '192.0.0.0/24', why: 'rest of 192.0.0/24' },
  { ip: '192.0.2.123', kind: 'documentation', range: '192.0.2.0/24', why: 'TEST-NET-1' },
  { ip: '192.88.99.1', kind: 'transition', why: 'retired 6to4 relay anycast' },
  { ip: '192.168.255.255', kind: 'private', range: '192.168.0.0/16', why: 'last of 192.168/16' },
  { ip: '198.18.0.0', kind: 'benchmarking', range: '198.18.0.0/15', why: 'first of 198.18/15' },
  { ip: '198.19.255.255', kind: 'benchmarking', why: 'last of 198.18/15' },
  { ip: '198.20.0.0', kind: null, why: 'just above benchmarking' },
  { ip: '203.0.113.255', kind: 'documentation', why: 'TEST-NET-3 last' },
  { ip: '223.255.255.255', kind: null, why: 'last unicast address' },
  { ip: '224.0.0.0', kind: 'multicast', range: '224.0.0.0/4', why: 'first multicast' },
  { ip: '233.252.0.1', kind: 'documentation', why: 'MCAST-TEST-NET inside multicast' },
  { ip: '239.255.255.255', kind: 'multicast', why: 'last multicast' },
  { ip: '240.0.0.0', kind: 'reserved', range: '240.0.0.0/4', why: 'class E' },
  { ip: '255.255.255.254', kind: 'reserved', why: 'class E, not broadcast' },
  { ip: '255.255.255.255', kind: 'broadcast', range: '255.255.255.255/32', why: 'limited broadcast' },
  { ip: '8.8.8.8', kind: null, why: 'public resolver' },
  // IPv6, in compressed, expanded and upper-case spellings.
  { ip: '::', kind: 'unspecified', range: '::/128', why: 'unspecified' },
  { ip: '0:0:0:0:0:0:0:1', kind: 'loopback', range: '::1/128', why: 'loopback, uncompressed' },
  { ip: '::2', kind: 'reserved', range: '::/8', why: 'rest of ::/8' },
  { ip: '::8.8.8.8', kind: 'reserved', why: 'deprecated IPv4-compatible form is not unmapped' },
  { ip: '100::1', kind: 'reserved', range: '100::/64', why: 'discard-only' },
  { ip: '2001:db8::1', kind: 'documentation', range: '2001:db8::/32', why: 'documentation' },
  { ip: '2001:DB8:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF', kind: 'documentation', why: 'last documentation address' },
  { ip: '2001:db9::', kind: null, why: 'just after 2001:db8::/32' },
  { ip: '2001:1ff:ffff::', kind: 'protocol-assignment', range: '2001::/23', why: 'end of 2001::/23, no sub-block' },
  { ip: '2001:200::', kind: null, why: 'just after 2001::/23' },
  { ip: '3fff:fff::1', kind: 'documentation', range: '3fff::/20', why: 'RFC 9637 documentation' },
  { ip: '3fff:1000::', kind: null, why: 'just after 3fff::/20' },
  { ip: '2001::1', kind: 'transition', range: '2001::/32', why: 'Teredo beats 2001::/23' },
  { ip: '2001:1::1', kind: 'anycast', range: '2001:1::1/128', why: 'PCP anycast /128' },
  { ip: '2001:2::ffff', kind: 'benchmarking', range: '2001:2::/48', why: 'IPv6 benchmarking' },
  { ip: '2002:c000:204::1', kind: 'transition', why: '6to4' },
  { ip: '2606:4700:4700::1111', kind: null, why: 'public resolver' },
  { ip: '4000::1', kind: 'reserved', range: '4000::/3', why: 'outside 2000::/3' },
  { ip: 'fc00::', kind: 'unique-local', range: 'fc00::/7', why: 'first ULA' },
  { ip: 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', kind: 'unique-local', why: 'last ULA' },
  { ip: 'fd00:ec2::254', kind: 'metadata', why: 'AWS IPv6 metadata inside ULA' },
  { ip: 'fe80::1', kind: 'link-local', range: 'fe80::/10', why: 'link-local' },
  { ip: 'febf:ffff::', kind: 'link-local', why: 'last /16 of fe80::/10' },
  { ip: 'fec0::1', kind: 'reserved', range: 'fec0::/10', why: 'deprecated site-local' },
  { ip: 'ff02::1', kind: 'multicast', range: 'ff00::/8', why: 'all-nodes multicast' },
  // Embedded IPv4: mapped and NAT64 addresses are classified by the IPv4 inside.
  { ip: '::ffff:10.1.2.3', kind: 'private', range: '10.0.0.0/8', why: 'mapped private' },
  { ip: '::FFFF:7f00:1', kind: 'loopback', why: 'mapped loopback in hex groups' },
  { ip: '::ffff:169.254.169.254', kind: 'metadata', why: 'mapped metadata must not slip past' },
  { ip: '::ffff:8.8.8.8', kind: null, why: 'mapped public' },
  { ip: '64:ff9b::192.168.1.1', kind: 'private', why: 'NAT64 to a private IPv4' },
  { ip: '64:ff9b::808:808', kind: null, why: 'NAT64 to a public IPv4 is public' },
  { ip: '64:ff9b:1::1', kind: 'private', range: '64:ff9b:1::/48', why: 'local-use NAT64 prefix' },
  // Not IP literals: null (callers decide; isForbiddenTarget refuses them).
  { ip: '', kind: null, why: 'empty' },
  { ip: 'localhost', kind: null, why: 'hostname' },
  { ip: '127.1', kind: null, why: 'inet_aton shorthand is not an IP literal here' },
  { ip: '010.0.0.1', kind: null, why: 'leading zero (octal ambiguity)' },
  { ip: '256.0.0.1', kind: null, why: 'octet out of range' },
  { ip: 'fe80::1%eth0', kind: null, why: 'zone index rejected' },
  { ip: '1:2:3:4:5:6:7:8:9', kind: null, why: 'too many groups' },
  { ip: ' 10.0.0.1', kind: null, why: 'surrounding space is not trimmed' },
];

test('classifySpecialAddress: registry table', () => {
  for (const c of cases) {
    const got = classifySpecialAddress(c.ip);
    assert.equal(got?.kind ?? null, c.kind, `${c.ip} (${c.why})`);
    if (c.range !== undefined) assert.equal(got?.range, c.range, `${c.ip} range (${c.why})`);
  }
});

test('classifySpecialAddress names the registry entry', () => {
  assert.deepEqual(classifySpecialAddress('10.1.2.3'), {
    kind: 'private',
    range: '10.0.0.0/8',
    name: 'Private-Use',
    rfc: 'RFC 1918',
    globallyReachable: false,
  });
});

test('isBogon: not-globally-reachable special addresses only', () => {
  assert.equal(isBogon('10.0.0.1'), true);
  assert.equal(isBogon('224.0.0.1'), true);
  assert.equal(isBogon('2001:db8::1'), true);
  assert.equal(isBogon('::ffff:192.168.0.1'), true);
  assert.equal(isBogon('192.0.0.9'), false, 'PCP anycast is special but reachable');
  assert.equal(isBogon('2001::1'), false, 'Teredo is reachable');
  assert.equal(isBogon('8.8.8.8'), false);
  assert.equal(isBogon('not an ip'), false, 'non-IP input is not an address, so not a bogon');
});

test('isForbiddenTarget: refuses internal targets and fails closed', () => {
  for (const ip of ['127.0.0.1', '::1', '169.254.169.254', 'fd00:ec2::254', '100.64.0.1', '0.0.0.0', '::']) {
    assert.equal(isForbiddenTarget(ip), true, ip);
  }
  for (const ip of ['::ffff:127.0.0.1', '64:ff9b::10.0.0.1', '192.0.0.170', '255.255.255.255', 'ff02::1']) {
    assert.equal(isForbiddenTarget(ip), true, ip);
  }
  // Regression guard: non-literals must not be treated as "not special, so allowed".
  for (const ip of ['localhost', '127.1', '2130706433', 'fe80::1%eth0', '']) {
    assert.equal(isForbiddenTarget(ip), true, ip);
  }
  for (const ip of ['8.8.8.8', '2606:4700:4700::1111', '64:ff9b::8.8.8.8', '192.31.196.1']) {
    assert.equal(isForbiddenTarget(ip), false, ip);
  }
});

test('isForbiddenTarget (issue 28): 6to4 and Teredo addresses are judged by the IPv4 addresses they embed', () => {
  assert.deepEqual(embeddedIpv4('2002:7f00:2::'), [{ via: '6to4', address: '127.0.0.2' }]);
  // Teredo: server 65.54.227.120, client 127.0.0.2 stored inverted (0x7f000002 ^ 0xffffffff = 80ff:fffd).
  assert.deepEqual(embeddedIpv4('2001:0:4136:e378:8000:63bf:80ff:fffd'), [
    { via: 'Teredo client', address: '127.0.0.2' },
    { via: 'Teredo server', address: '65.54.227.120' },
  ]);
  assert.deepEqual(embeddedIpv4('2606:4700::1111'), []);
  assert.deepEqual(embeddedIpv4('127.0.0.2'), []);
  for (const ip of [
    '2002:7f00:2::',
    '2002:a9fe:a9fe::1', // 169.254.169.254, the metadata address
    '2002:c0a8:101::', // 192.168.1.1
    '2001:0:4136:e378:8000:63bf:80ff:fffd', // Teredo client 127.0.0.2
    '2001:0:a00:1:8000:63bf:f7f7:f7f7', // Teredo server 10.0.0.1
  ]) {
    assert.equal(isForbiddenTarget(ip), true, ip);
  }
  for (const ip of ['2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7']) {
    assert.equal(isForbiddenTarget(ip), false, ip);
  }
  // Their classification for /json is unchanged: the address itself is a transition address.
  assert.equal(classifySpecialAddress('2002:7f00:2::')?.kind, 'transition');
});
