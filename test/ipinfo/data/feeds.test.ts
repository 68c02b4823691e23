import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseAsnList, parseCidrList, parseTorExitList } from '../../../src/ipinfo/data/feeds.ts';
import { buildSecurityFeeds } from '../../../src/ipinfo/data/security-feeds.ts';
import { formatCidr } from '../../../src/net/cidr.ts';
import { feedDir, feedSkip } from '../../support/mmdb-fixtures.ts';

const readFeed = (name: string) => readFileSync(path.join(feedDir, name), 'utf8');

test('parseCidrList: comments, blanks, CRLF and bad lines', () => {
  const text = [
    '# generated 2024-02-27', // 1: whole-line comment
    '',
    '1.12.0.0/14',
    '  2001:db8::/32  # trailing comment\r', // 4: CRLF and trailing comment
    '10.0.0.1/8', // 5: host bits set
    '300.0.0.0/8', // 6
    '192.0.2.7', // 7: bare address, a /32
    '1.2.3.0/33', // 8
    '\t\r',
    'garbage here', // 10
  ].join('\n');
  const { entries, malformed } = parseCidrList(text);
  assert.deepEqual(entries.map(formatCidr), ['1.12.0.0/14', '2001:db8::/32', '192.0.2.7/32']);
  assert.deepEqual(malformed, [
    { line: 5, text: '10.0.0.1/8', reason: 'host bits set' },
    { line: 6, text: '300.0.0.0/8', reason: 'not an IP address' },
    { line: 8, text: '1.2.3.0/33', reason: 'prefix length over 32' },
    { line: 10, text: 'garbage here', reason: 'not an IP address' },
  ]);
});

test('parseTorExitList: addresses only', () => {
  const { entries, malformed } = parseTorExitList(
    '185.220.101.1\n2001:0620:20d0:0000:0000:0000:0000:0019\n10.0.0.0/8\n',
  );
  assert.deepEqual(entries.map(formatCidr), ['185.220.101.1/32', '2001:620:20d0::19/128']);
  assert.deepEqual(malformed, [{ line: 3, text: '10.0.0.0/8', reason: 'a network, not an exit address' }]);
});

test('parseAsnList: AS prefix optional, comments kept', () => {
  const { entries, malformed } = parseAsnList(
    'AS3223 # VOXILITY, RO\nas9009\t# M247\n13335\nAS\nAS4294967296\n# only\n',
  );
  assert.deepEqual(entries, [{ asn: 3223, comment: 'VOXILITY, RO' }, { asn: 9009, comment: 'M247' }, { asn: 13335 }]);
  assert.deepEqual(
    malformed.map((m) => [m.line, m.reason]),
    [
      [4, 'not an AS number'],
      [5, 'AS number over 32 bits'],
    ],
  );
});

test('buildSecurityFeeds: independent flags, ASN fallbacks', () => {
  const feeds = buildSecurityFeeds({
    torExits: parseTorExitList('198.51.100.7').entries,
    vpnNetworks: parseCidrList('203.0.113.0/24').entries,
    datacenterNetworks: parseCidrList('203.0.0.0/16\n2001:db8::/32').entries,
    vpnAsns: [9009],
    datacenterAsns: [16509],
    proxyNetworks: parseCidrList('# firehol_proxies\n198.51.100.9\n203.0.113.128/25').entries,
  });
  assert.deepEqual(feeds.lookup('198.51.100.9'), { tor: false, vpn: false, hosting: false, proxy: true }, 'open proxy');
  assert.deepEqual(
    feeds.lookup('203.0.113.200'),
    { tor: false, vpn: true, hosting: true, proxy: true },
    'all three lists',
  );
  assert.deepEqual(feeds.lookup('198.51.100.7'), { tor: true, vpn: false, hosting: false, proxy: false });
  assert.deepEqual(
    feeds.lookup('203.0.113.5'),
    { tor: false, vpn: true, hosting: true, proxy: false },
    'VPN /24 inside DC /16',
  );
  assert.deepEqual(feeds.lookup('2001:db8::1'), { tor: false, vpn: false, hosting: true, proxy: false });
  assert.deepEqual(feeds.lookup('192.0.2.1', 9009), { tor: false, vpn: true, hosting: false, proxy: false }, 'VPN ASN');
  assert.deepEqual(feeds.lookup('192.0.2.1', 16509), { tor: false, vpn: false, hosting: true, proxy: false }, 'DC ASN');
  assert.deepEqual(feeds.lookup('192.0.2.1'), { tor: false, vpn: false, hosting: false, proxy: false });
  assert.deepEqual(buildSecurityFeeds({}).lookup('1.2.3.4', 1), {
    tor: false,
    vpn: false,
    hosting: false,
    proxy: false,
  });
  assert.deepEqual(
    feeds.lookup('::ffff:198.51.100.7'),
    { tor: true, vpn: false, hosting: false, proxy: false },
    'mapped IPv4',
  );
  assert.deepEqual(feeds.lookup('not an ip', 9009), { tor: false, vpn: false, hosting: false, proxy: false });
});

test('buildSecurityFeeds: coverage says which families a feed can answer for', () => {
  const feeds = buildSecurityFeeds({
    torExits: parseTorExitList('198.51.100.7').entries,
    datacenterNetworks: parseCidrList('203.0.0.0/16\n2001:db8::/32').entries,
  });
  assert.deepEqual(feeds.coverage, {
    tor: { ipv4: true, ipv6: false },
    vpn: { ipv4: false, ipv6: false },
    datacenter: { ipv4: true, ipv6: true },
    proxy: { ipv4: false, ipv6: false },
  });
});

test('real feed snapshots parse cleanly and answer lookups', { skip: feedSkip }, () => {
  const datacenter4 = parseCidrList(readFeed('x4bnet-datacenter-ipv4.txt'));
  const datacenter6 = parseCidrList(readFeed('x4bnet-datacenter-ipv6.txt'));
  const vpn4 = parseCidrList(readFeed('x4bnet-vpn-ipv4.txt'));
  const vpn6 = parseCidrList(readFeed('x4bnet-vpn-ipv6.txt'));
  const tor = parseTorExitList(readFeed('tor-exit-nodes.lst'));
  const datacenterAsns = parseAsnList(readFeed('x4bnet-datacenter-ASN.txt'));
  const vpnAsns = parseAsnList(readFeed('x4bnet-vpn-ASN.txt'));
  // Line counts from `wc -l`; the snapshots have no comments, blanks or bad lines.
  assert.equal(datacenter4.entries.length, 42566);
  assert.equal(datacenter6.entries.length, 8752);
  assert.equal(vpn4.entries.length, 10862);
  assert.equal(vpn6.entries.length, 498);
  assert.equal(tor.entries.length, 1746);
  assert.equal(datacenterAsns.entries.length, 906);
  assert.equal(vpnAsns.entries.length, 15);
  for (const feed of [datacenter4, datacenter6, vpn4, vpn6, tor, datacenterAsns, vpnAsns]) {
    assert.deepEqual(feed.malformed, []);
  }
  assert.deepEqual(datacenterAsns.entries[1], { asn: 3223, comment: 'VOXILITY, RO' });

  const feeds = buildSecurityFeeds({
    torExits: tor.entries,
    vpnNetworks: [...vpn4.entries, ...vpn6.entries],
    datacenterNetworks: [...datacenter4.entries, ...datacenter6.entries],
    vpnAsns: vpnAsns.entries.map((e) => e.asn),
    datacenterAsns: datacenterAsns.entries.map((e) => e.asn),
  });
  // Expected answers cross-checked with Python's ipaddress module over the same files.
  assert.deepEqual(
    feeds.lookup('1.13.255.255'),
    { tor: false, vpn: false, hosting: true, proxy: false },
    'end of 1.12.0.0/14',
  );
  assert.deepEqual(feeds.lookup('1.16.0.0'), { tor: false, vpn: false, hosting: false, proxy: false });
  assert.deepEqual(feeds.lookup('2.56.19.1'), { tor: false, vpn: true, hosting: true, proxy: false });
  assert.deepEqual(feeds.lookup('101.99.92.179'), { tor: true, vpn: false, hosting: false, proxy: false });
  assert.deepEqual(feeds.lookup('2001:470:1:908::9001'), { tor: true, vpn: false, hosting: true, proxy: false });
  assert.deepEqual(feeds.lookup('2001:ac8::1'), { tor: false, vpn: true, hosting: true, proxy: false });
  assert.deepEqual(feeds.lookup('1.1.1.1'), { tor: false, vpn: false, hosting: false, proxy: false });
  assert.deepEqual(
    feeds.lookup('1.1.1.1', 14061),
    { tor: false, vpn: false, hosting: true, proxy: false },
    'DigitalOcean ASN',
  );
});
