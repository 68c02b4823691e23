import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeIp } from '../../../src/ipinfo/answers/describe-ip.ts';
import { parseCidrList, parseTorExitList } from '../../../src/ipinfo/data/feeds.ts';
import {
  createAnonymityReader,
  createConnectionTypeReader,
  createLocationReader,
  createNetworkReader,
} from '../../../src/ipinfo/data/geo.ts';
import type { FeedName, IpData } from '../../../src/ipinfo/data/ip-data.ts';
import { buildSecurityFeeds, type SecurityFeedData } from '../../../src/ipinfo/data/security-feeds.ts';
import { mmdb, mmdbScenario } from '../../support/mmdb-fixtures.ts';

function ipData(parts: Partial<IpData> & { feedData?: SecurityFeedData; feedNames?: FeedName[] } = {}): IpData {
  const { feedData = {}, feedNames = [], ...rest } = parts;
  return {
    feeds: buildSecurityFeeds(feedData),
    feedsLoaded: new Set(feedNames),
    sources: [],
    problems: [],
    attribution: '',
    kept: {},
    ...rest,
  };
}

describe('describeIp: class and bogons', () => {
  // Special-purpose addresses: 200-style answers with ip, class and bogon, and nothing invented.
  const cases: [ip: string, bogon: boolean, ipClass: string | undefined, kind: string | undefined][] = [
    ['10.1.2.3', true, 'A', 'private'],
    ['172.16.0.1', true, 'B', 'private'],
    ['192.168.1.1', true, 'C', 'private'],
    ['127.0.0.1', true, 'A', 'loopback'],
    ['169.254.10.10', true, 'B', 'link-local'],
    ['169.254.169.254', true, 'B', 'metadata'],
    ['100.64.0.1', true, 'A', 'cgnat'],
    ['192.0.2.1', true, 'C', 'documentation'],
    ['198.18.0.1', true, 'C', 'benchmarking'],
    ['224.0.0.251', true, 'D', 'multicast'],
    ['240.0.0.1', true, 'E', 'reserved'],
    ['255.255.255.255', true, 'E', 'broadcast'],
    ['0.0.0.0', true, 'A', 'unspecified'],
    ['::1', true, undefined, 'loopback'],
    ['fe80::1', true, undefined, 'link-local'],
    ['fd12:3456::1', true, undefined, 'unique-local'],
    ['2001:db8::1', true, undefined, 'documentation'],
    ['::ffff:10.0.0.1', true, 'A', 'private'], // a mapped address is its IPv4 address
    // Special but globally reachable: looked up like any public address.
    ['192.88.99.1', false, 'C', 'transition'],
    ['2002:c000:204::1', false, undefined, 'transition'],
    ['192.31.196.1', false, 'C', 'anycast'],
    // Ordinary public addresses.
    ['8.8.8.8', false, 'A', undefined],
    ['128.0.0.1', false, 'B', undefined],
    ['2606:4700::1', false, undefined, undefined],
  ];
  for (const [ip, bogon, ipClass, kind] of cases) {
    it(`${ip}: bogon ${bogon}, class ${ipClass ?? 'none'}, special ${kind ?? 'none'}`, () => {
      const answer = describeIp(ip, ipData({ location: undefined }));
      assert.equal(answer.ip, ip);
      assert.equal(answer.security.bogon, bogon);
      assert.equal(answer.class, ipClass);
      assert.equal(answer.special?.kind, kind);
      const native6 = ip.includes(':') && !ip.startsWith('::ffff:');
      assert.equal(answer.ipv6, native6 ? ip : undefined, 'ipv6 only for an IPv6 client');
    });
  }

  it('a bogon gets no location, network, type or security flags, even with data that would answer', () => {
    const data = ipData({
      location: createLocationReader(mmdb('GeoIP2-City-Test')),
      anonymity: createAnonymityReader(mmdb('GeoIP2-Anonymous-IP-Test')),
      feedData: { datacenterNetworks: parseCidrList('10.0.0.0/8').entries },
    });
    assert.deepEqual(describeIp('10.0.0.1', data), {
      ip: '10.0.0.1',
      class: 'A',
      special: { kind: 'private', range: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918' },
      security: { bogon: true, sources: [] },
    });
  });

  it('input that is no IP address (a Unix-socket peer) is a bogon with nothing else', () => {
    assert.deepEqual(describeIp('', ipData()), { ip: '', security: { bogon: true, sources: [] } });
  });
});

describe('describeIp: type, from the strongest evidence available', () => {
  const data = ipData({
    network: createNetworkReader(mmdb('GeoIP2-ISP-Test')),
    connectionType: createConnectionTypeReader(mmdb('GeoIP2-Connection-Type-Test')),
    feedData: { datacenterNetworks: parseCidrList('216.160.83.56/29').entries },
    feedNames: ['datacenter'],
  });
  const cases: [ip: string, type: string | undefined, why: string][] = [
    ['1.0.0.1', 'residential', 'Connection-Type Cable/DSL'],
    ['1.0.1.1', 'mobile', 'Connection-Type Cellular'],
    ['201.243.200.1', 'business', 'Connection-Type Corporate'],
    ['214.78.120.1', undefined, 'Satellite is not guessed, and the ISP has no telling name'],
    ['216.160.83.57', 'hosting', 'the datacenter feed beats Corporate'],
    ['32.0.0.1', 'mobile', 'AS organisation "AT&T Wireless"'],
    ['32.64.2.1', 'hosting', 'AS organisation "AT&T Synaptic Cloud Hosting"'],
    ['8.8.8.8', undefined, 'no evidence at all'],
  ];
  for (const [ip, type, why] of cases) {
    it(`${ip}: ${type ?? 'omitted'} (${why})`, () => {
      assert.equal(describeIp(ip, data).type, type);
    });
  }
});

describe('describeIp: security indicators are never a guessed false', () => {
  const tor = parseTorExitList('185.220.101.1\n').entries; // IPv4 only, like the Tor Project's list
  const vpn = parseCidrList('2.56.19.0/24\n2001:ac8::/32\n').entries;
  const datacenter = parseCidrList('2.56.0.0/16\n').entries;
  const feedsOnly = ipData({
    network: createNetworkReader(mmdb('GeoLite2-ASN-Test')),
    feedData: { torExits: tor, vpnNetworks: vpn, datacenterNetworks: datacenter, vpnAsns: [1221] },
    feedNames: ['tor', 'vpn', 'vpn-asn', 'datacenter'],
  });
  const withDatabase = ipData({ ...feedsOnly, anonymity: createAnonymityReader(mmdb('GeoIP2-Anonymous-IP-Test')) });
  // FireHOL's open-proxy list, as FEED_PROXY_URL installs it: addresses and networks of both families.
  const withProxyList = ipData({
    network: createNetworkReader(mmdb('GeoLite2-ASN-Test')),
    feedData: {
      torExits: tor,
      vpnNetworks: vpn,
      datacenterNetworks: datacenter,
      vpnAsns: [1221],
      proxyNetworks: parseCidrList('81.2.69.142\n2001:db9::/32\n').entries,
    },
    feedNames: ['tor', 'vpn', 'vpn-asn', 'datacenter', 'proxy'],
  });

  const cases: [name: string, data: IpData, ip: string, expected: object][] = [
    ['no data: only bogon', ipData(), '8.8.8.8', { bogon: false, sources: [] }],
    [
      'IPv4 not listed: false from the feeds that cover IPv4; proxy unknown without the open-proxy list or the database',
      feedsOnly,
      '9.9.9.9',
      {
        bogon: false,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks'],
      },
    ],
    [
      'a listed Tor exit is a proxy too',
      feedsOnly,
      '185.220.101.1',
      {
        bogon: false,
        proxy: true,
        vpn: false,
        tor: true,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks'],
      },
    ],
    [
      'VPN /24 inside a datacenter /16: both flags',
      feedsOnly,
      '2.56.19.7',
      {
        bogon: false,
        proxy: true,
        vpn: true,
        tor: false,
        hosting: true,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks'],
      },
    ],
    [
      'IPv6: the IPv4-only Tor and datacenter lists cannot answer, so tor and hosting are omitted',
      feedsOnly,
      '2001:ac8::1',
      { bogon: false, proxy: true, vpn: true, sources: ['vpn-networks'] },
    ],
    [
      "the VPN ASN list catches the AS's other prefixes",
      feedsOnly,
      '1.128.0.1',
      {
        bogon: false,
        proxy: true,
        vpn: true,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'vpn-asns', 'datacenter-networks'],
      },
    ],
    [
      'the Anonymous IP database knows open proxies: every flag answered',
      withDatabase,
      '81.2.69.142',
      {
        bogon: false,
        proxy: true,
        vpn: true,
        tor: true,
        hosting: true,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'anonymous-ip-database'],
      },
    ],
    [
      'a public proxy per the database only',
      withDatabase,
      '186.30.236.1',
      {
        bogon: false,
        proxy: true,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'anonymous-ip-database'],
      },
    ],
    [
      'unlisted everywhere, with the database: a false for each',
      withDatabase,
      '9.9.9.9',
      {
        bogon: false,
        proxy: false,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'anonymous-ip-database'],
      },
    ],
    [
      'IPv6 with the (IPv6) database: covered after all',
      withDatabase,
      '2001:480:3a::1',
      {
        bogon: false,
        proxy: true,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['vpn-networks', 'anonymous-ip-database'],
      },
    ],
    [
      'on the open-proxy list: proxy true without any database',
      withProxyList,
      '81.2.69.142',
      {
        bogon: false,
        proxy: true,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'proxy-list'],
      },
    ],
    [
      'not on the loaded open-proxy list: proxy false (not omitted), so every indicator is a boolean',
      withProxyList,
      '9.9.9.9',
      {
        bogon: false,
        proxy: false,
        vpn: false,
        tor: false,
        hosting: false,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'proxy-list'],
      },
    ],
  ];
  for (const [name, data, ip, expected] of cases) {
    it(`${ip}: ${name}`, () => assert.deepEqual(describeIp(ip, data).security, expected));
  }
});

describe('describeIp: location and network from the MaxMind test databases', () => {
  it('fills location and network, omits what the records lack', () => {
    const data = ipData({
      location: createLocationReader(mmdb('GeoIP2-City-Test')),
      network: createNetworkReader(mmdb('GeoLite2-ASN-Test')),
    });
    const answer = describeIp('216.160.83.56', data);
    assert.deepEqual(answer.location, mmdbScenario('GeoIP2-City-Test.216.160.83.56'));
    assert.deepEqual(answer.network, { asn: 'AS209', route: '216.160.64.0/18' }, 'the record has no organisation');
    assert.deepEqual(describeIp('1.0.0.1', data).network, {
      provider: 'Google Inc.',
      asn: 'AS15169',
      route: '1.0.0.0/24',
    });
    assert.equal(describeIp('8.8.8.8', data).network, undefined, 'not in the ASN test database: omitted');
    assert.equal(describeIp('1.0.0.1', data).location, undefined, 'not in the City test database');
  });
});
