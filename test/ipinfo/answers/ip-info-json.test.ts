import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { describeIp } from '../../../src/ipinfo/answers/describe-ip.ts';
import { ipInfoJson, schemaIpInfoJson } from '../../../src/ipinfo/answers/ip-info-json.ts';
import { embeddedAsnRanges, embeddedCityDatabase } from '../../../src/ipinfo/data/embedded-data.ts';
import { parseCidrList } from '../../../src/ipinfo/data/feeds.ts';
import { createAnonymityReader, createLocationReader } from '../../../src/ipinfo/data/geo.ts';
import type { IpData } from '../../../src/ipinfo/data/ip-data.ts';
import { buildSecurityFeeds } from '../../../src/ipinfo/data/security-feeds.ts';
import { formatIp } from '../../../src/net/ip-address.ts';
import { mmdb } from '../../support/mmdb-fixtures.ts';
import { xorshift } from '../../support/public-addresses.ts';

/** The reference: what the response schema's compiled serialiser writes, escaped as every JSON answer is sent. */
const reference = (answer: unknown) => schemaIpInfoJson(answer as never);

function assertSame(answer: unknown, label: string): void {
  let expected: string | Error;
  try {
    expected = reference(answer);
  } catch (error) {
    expected = error as Error;
  }
  if (expected instanceof Error) {
    assert.throws(() => ipInfoJson(answer as never), { message: expected.message }, label);
    return;
  }
  assert.equal(ipInfoJson(answer as never), expected, label);
}

test('answers of the embedded data with every feed flag are written byte for byte as the compiled serialiser writes them', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-ip-info-json-'));
  const [city, asn] = await Promise.all([embeddedCityDatabase(dir), embeddedAsnRanges(dir)]);
  const next = xorshift(0x1f123bb5);
  const ips: string[] = [];
  for (let i = 0; i < 6000; i++) {
    const value = next();
    ips.push(`${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`);
  }
  for (let i = 0; i < 2000; i++) {
    const hi = BigInt(0x20000000 + (next() & 0x1fffffff));
    ips.push(formatIp({ version: 6, value: (hi << 96n) | (BigInt(next()) << 64n) | BigInt(next()) }));
  }
  // Bogons, special but reachable, a mapped address's answer, and what is no address at all.
  ips.push('10.0.0.1', '127.0.0.1', '::1', 'fe80::1', '192.88.99.1', '2002:c000:204::1', '0.0.0.0', 'unix-socket');
  // Each feed lists some of the addresses (as /8s and /16s, so IPv6 ones too), in overlapping thirds.
  const cidrs = (pick: (i: number) => boolean) =>
    parseCidrList(
      ips
        .filter((ip, i) => pick(i) && !ip.includes(':') && /^\d/.test(ip))
        .map((ip) => `${ip.split('.').slice(0, 2).join('.')}.0.0/16`)
        .join('\n'),
    ).entries;
  const v6 = (pick: (i: number) => boolean) =>
    parseCidrList(
      ips
        .filter((ip, i) => pick(i) && ip.includes(':'))
        .map((ip) => `${ip.split(':').slice(0, 2).join(':')}::/32`)
        .join('\n'),
    ).entries;
  const base: IpData = {
    location: createLocationReader(city.value),
    network: asn.ranges,
    feeds: buildSecurityFeeds({
      torExits: cidrs((i) => i % 7 === 0),
      vpnNetworks: [...cidrs((i) => i % 5 === 0), ...v6((i) => i % 5 === 0)],
      datacenterNetworks: [...cidrs((i) => i % 3 === 0), ...v6((i) => i % 3 === 0)],
      proxyNetworks: cidrs((i) => i % 11 === 0),
      vpnAsns: [15169, 13335, 16509],
      datacenterAsns: [8075, 14618, 3356],
    }),
    feedsLoaded: new Set(['tor', 'vpn', 'vpn-asn', 'datacenter', 'datacenter-asn', 'proxy']),
    sources: [],
    problems: [],
    attribution: '',
    kept: {},
  };
  const snapshots: [string, IpData | undefined][] = [
    ['every feed', base],
    ['the Anonymous IP database', { ...base, anonymity: createAnonymityReader(mmdb('GeoIP2-Anonymous-IP-Test')) }],
    ['no feeds', { ...base, feeds: buildSecurityFeeds({}), feedsLoaded: new Set() }],
    ['no data', undefined],
  ];
  const flags = new Set<string>();
  let compared = 0;
  for (const [what, data] of snapshots) {
    for (const ip of ips) {
      const answer = describeIp(ip, data);
      flags.add(JSON.stringify({ ...answer.security, sources: undefined }));
      assertSame(answer, `${ip} with ${what}`);
      // The route adds these to the description (ip-answers.ts, batch.ts); twice, so cached parts are reused.
      assertSame({ ...answer, hostname: `host-${compared}.example`, mappedFrom: `::ffff:${ip}` }, `${ip} named`);
      assertSame(answer, `${ip} with ${what}, again`);
      compared++;
    }
  }
  assert.equal(compared, 4 * ips.length);
  // Every flag was seen true and false (so the test covered the shapes it claims to).
  for (const flag of ['proxy', 'vpn', 'tor', 'hosting']) {
    for (const value of [true, false])
      assert.ok(
        [...flags].some((seen) => seen.includes(`"${flag}":${value}`)),
        `${flag} ${value}`,
      );
  }
  rmSync(dir, { recursive: true, force: true });
});

test('strings that need escaping, numbers, RPKI and values the compiled serialiser refuses are written as it writes them', () => {
  const base = { ip: '192.0.2.1', security: { bogon: false, sources: ['tor-exit-list'] } };
  const odd = [
    'quote " and \\ backslash',
    'tab\tnew\nline\u0001',
    'DEL\u007f C1\u009b',
    'lone \ud800 half',
    'São Paulo 東京 😀',
    '',
  ];
  const answers: unknown[] = [
    ...odd.map((text) => ({ ...base, hostname: text })),
    ...odd.map((text) => ({ ...base, location: { city: text, country: text, postalCode: text } })),
    ...odd.map((text) => ({ ...base, network: { provider: text, asn: 'AS1', route: '192.0.2.0/24' } })),
    { ...base, location: { latitude: -0, longitude: 1e21, accuracyRadius: 0 } },
    { ...base, location: { latitude: 1.5, accuracyRadius: 2.7 } },
    { ...base, location: { latitude: Number.POSITIVE_INFINITY } },
    { ...base, location: {} },
    { ...base, network: {} },
    {
      ...base,
      network: {
        asn: 'AS13335',
        route: '1.1.1.0/24',
        rpki: {
          status: 'invalid',
          reason: 'length',
          vrps: [
            { prefix: '1.1.1.0/24', maxLength: 24, asn: 'AS13335' },
            { prefix: '1.0.0.0/8', maxLength: 8, asn: 'AS0' },
          ],
        },
      },
    },
    { ...base, network: { asn: 'AS1', route: '1.0.0.0/24', rpki: { status: 'not-found', vrps: [] } } },
    { ...base, network: { asn: 'AS1', abuse: { email: 'abuse@example.net' } } },
    { ...base, special: { kind: 'transition', range: '192.88.99.0/24', name: '6to4 "Relay"', rfc: 'RFC 7526' } },
    { ...base, type: 'residential', class: 'C' },
    { ...base, security: { bogon: false, proxy: true, vpn: false, tor: true, hosting: false, sources: [] } },
    // Refused by the compiled serialiser (it throws), so by this one the same way.
    { ...base, type: 'satellite' },
    { ...base, class: 'F' },
    { ...base, security: { bogon: false, sources: ['a-rumour'] } },
    { ...base, network: { rpki: { status: 'unknown', vrps: [] } } },
    { ...base, security: { bogon: 1, proxy: 'yes', sources: [] } },
  ];
  for (const [i, answer] of answers.entries()) assertSame(answer, `case ${i}: ${JSON.stringify(answer)}`);
});
