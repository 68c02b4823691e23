import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseAsnCsvIpv4, parseAsnCsvIpv6 } from '../../../src/ipinfo/data/asn-csv.ts';
import { decodeAsnRanges, encodeAsnRanges } from '../../../src/ipinfo/data/asn-ranges.ts';
import { embeddedAsnRanges, versionDate } from '../../../src/ipinfo/data/embedded-data.ts';

const v4 = (ip: string) => ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);

describe('parseAsnCsv', () => {
  it('reads quoted names, skips malformed rows, sorts, and clips overlaps (earlier row wins)', () => {
    const text = [
      `${v4('1.0.4.0')},${v4('1.0.7.255')},38803,Gtelecom Pty Ltd`,
      `${v4('1.0.0.0')},${v4('1.0.0.255')},13335,"Cloudflare, Inc."`, // out of order
      `${v4('2.26.200.0')},${v4('2.26.215.255')},201907,"LLC ""SPUTNIK"""`,
      `${v4('2.26.210.0')},${v4('2.26.220.255')},1,Overlapping Org`, // starts inside the row before
      `${v4('2.26.201.0')},${v4('2.26.202.255')},2,Nested Org`, // wholly inside: dropped
      '5,4,1,end before start',
      '1,2,3,"unbalanced',
      'garbage',
      '',
    ].join('\r\n');
    const parsed = parseAsnCsvIpv4(text);
    assert.equal(parsed.malformed, 3);
    assert.equal(parsed.overlaps, 2);
    assert.deepEqual(
      parsed.rows.map((row) => [row.first, row.last, row.asn, row.organisation]),
      [
        [v4('1.0.0.0'), v4('1.0.0.255'), 13335, 'Cloudflare, Inc.'],
        [v4('1.0.4.0'), v4('1.0.7.255'), 38803, 'Gtelecom Pty Ltd'],
        [v4('2.26.200.0'), v4('2.26.215.255'), 201907, 'LLC "SPUTNIK"'],
        [v4('2.26.216.0'), v4('2.26.220.255'), 1, 'Overlapping Org'],
      ],
    );
  });

  it('IPv6 rows as 128-bit numbers', () => {
    const { rows, malformed } = parseAsnCsvIpv6(
      '42540528726795050063891204319802818560,42540528727329395276160870415022948351,2500,WIDE Project\n' +
        '340282366920938463463374607431768211456,340282366920938463463374607431768211456,1,too big\n',
    );
    assert.equal(malformed, 1);
    assert.equal(rows[0]?.first, 0x20010200000000000000000000000000n);
  });
});

describe('AsnRanges: the compact binary form', () => {
  const source = {
    ipv4: parseAsnCsvIpv4(
      [
        `${v4('1.0.0.0')},${v4('1.0.0.255')},13335,"Cloudflare, Inc."`,
        `${v4('1.0.4.0')},${v4('1.0.7.255')},38803,Gtelecom Pty Ltd`,
        `${v4('1.0.8.0')},${v4('1.0.10.255')},4134,Chinanet`, // three /24s: no single CIDR
        `${v4('255.255.255.0')},${v4('255.255.255.255')},64512,Ünïcödé Ltd`,
      ].join('\n'),
    ).rows,
    ipv6: parseAsnCsvIpv6(
      [
        `${0x20010200000000000000000000000000n},${0x200102000000ffffffffffffffffffffn},2500,WIDE Project`,
        `${0x26064700000000000000000000000000n},${0x26064700ffffffffffffffffffffffffn},13335,"Cloudflare, Inc."`,
      ].join('\n'),
    ).rows,
  };
  const built = new Date('2026-06-17T19:00:00Z');
  const ranges = decodeAsnRanges(encodeAsnRanges(source, built));

  const cases: [ip: string, expected: object | undefined][] = [
    ['1.0.0.0', { asn: 'AS13335', asnNumber: 13335, provider: 'Cloudflare, Inc.', route: '1.0.0.0/24' }],
    ['1.0.0.255', { asn: 'AS13335', asnNumber: 13335, provider: 'Cloudflare, Inc.', route: '1.0.0.0/24' }],
    ['1.0.1.0', undefined], // in the gap
    ['1.0.5.9', { asn: 'AS38803', asnNumber: 38803, provider: 'Gtelecom Pty Ltd', route: '1.0.4.0/22' }],
    ['1.0.9.1', { asn: 'AS4134', asnNumber: 4134, provider: 'Chinanet' }],
    ['0.255.255.255', undefined], // below the first row
    ['255.255.255.255', { asn: 'AS64512', asnNumber: 64512, provider: 'Ünïcödé Ltd', route: '255.255.255.0/24' }],
    ['::ffff:1.0.0.7', { asn: 'AS13335', asnNumber: 13335, provider: 'Cloudflare, Inc.', route: '1.0.0.0/24' }],
    ['2001:200::1', { asn: 'AS2500', asnNumber: 2500, provider: 'WIDE Project', route: '2001:200::/48' }],
    [
      '2001:200:0:ffff:ffff:ffff:ffff:ffff',
      { asn: 'AS2500', asnNumber: 2500, provider: 'WIDE Project', route: '2001:200::/48' },
    ],
    ['2001:200:1::', undefined],
    [
      '2606:4700:4700::1111',
      { asn: 'AS13335', asnNumber: 13335, provider: 'Cloudflare, Inc.', route: '2606:4700::/32' },
    ],
    ['2606:4701::', undefined],
    ['not an ip', undefined],
  ];
  for (const [ip, expected] of cases) {
    it(`${ip} -> ${expected === undefined ? 'nothing' : JSON.stringify(expected)}`, () => {
      assert.deepEqual(ranges.lookupNetwork(ip), expected);
    });
  }

  it('keeps the build time, and refuses blobs that are not its own', () => {
    assert.equal(ranges.buildEpoch.toISOString(), built.toISOString());
    const blob = encodeAsnRanges(source, built);
    assert.throws(() => decodeAsnRanges(Buffer.from('NIASN\0\0\x02rest of it')), /not an ASN range blob/);
    assert.throws(() => decodeAsnRanges(blob.subarray(0, blob.length - 8)), /expected \d+/, 'truncated');
    // A Buffer that does not start on an 8-byte boundary is copied, not misread.
    const shifted = Buffer.alloc(blob.length + 3);
    blob.copy(shifted, 3);
    assert.deepEqual(decodeAsnRanges(shifted.subarray(3)).lookupNetwork('1.0.0.1'), ranges.lookupNetwork('1.0.0.1'));
  });

  it('versionDate reads ip-location-db versions', () => {
    assert.equal(versionDate('2.3.2026061719').toISOString(), '2026-06-17T19:00:00.000Z');
    assert.equal(versionDate('1.0.0').getTime(), 0);
  });
});

describe('the embedded ASN data (@ip-location-db/asn), compiled', () => {
  // The package's README warns of data bugs; these anchors are facts checked independently of it.
  const anchors: [ip: string, asn: string, provider: RegExp][] = [
    ['1.1.1.1', 'AS13335', /Cloudflare/],
    ['8.8.8.8', 'AS15169', /Google/],
    ['9.9.9.9', 'AS19281', /Quad9/],
    ['208.67.222.222', 'AS36692', /OpenDNS/],
    ['140.82.112.3', 'AS36459', /GitHub/],
    ['193.0.6.139', 'AS3333', /RIPE/],
    ['2001:4860:4860::8888', 'AS15169', /Google/],
    ['2606:4700:4700::1111', 'AS13335', /Cloudflare/],
    ['2620:fe::fe', 'AS19281', /Quad9/],
    ['2001:67c:2e8:22::c100:68b', 'AS3333', /RIPE/],
  ];
  it('answers well-known networks correctly, and nothing for private space', async () => {
    const { ranges } = await embeddedAsnRanges(path.resolve('.tmp/test-data/ipinfo/embedded'));
    for (const [ip, asn, provider] of anchors) {
      const network = ranges.lookupNetwork(ip);
      assert.equal(network?.asn, asn, ip);
      assert.match(network?.provider ?? '', provider, ip);
    }
    for (const ip of ['10.0.0.1', '192.168.1.1', '127.0.0.1', 'fd00::1'])
      assert.equal(ranges.lookupNetwork(ip), undefined, ip);
  });

  it('the compiled form holds every row of the CSV; the one known overlap is clipped, not dropped', async () => {
    const directory = path.dirname(createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json'));
    const lines = (file: string) => readFileSync(path.join(directory, file), 'utf8').trim().split('\n').length;
    const { ranges } = await embeddedAsnRanges(path.resolve('.tmp/test-data/ipinfo/embedded'));
    const ipv4 = parseAsnCsvIpv4(readFileSync(path.join(directory, 'asn-ipv4-num.csv'), 'utf8'));
    assert.equal(ipv4.malformed, 0);
    assert.ok(ipv4.overlaps <= 1, `overlaps: ${ipv4.overlaps}`);
    assert.equal(ipv4.rows.length, lines('asn-ipv4-num.csv'));
    assert.equal(ranges.ipv4Rows, ipv4.rows.length);
    assert.equal(ranges.ipv6Rows, lines('asn-ipv6-num.csv'));
  });

  it("an IPv4 lookup (searched within its /16) finds the row of each range's first and last address, and none just outside", async () => {
    const { ranges } = await embeddedAsnRanges(path.resolve('.tmp/test-data/ipinfo/embedded'));
    const { first4, last4, asn4 } = ranges.rows;
    const asnAt = (value: number) => ranges.lookupNetworkAddress({ version: 4, value })?.asn;
    let gaps = 0;
    for (let i = 0; i < first4.length; i++) {
      const first = first4[i] as number;
      const last = last4[i] as number;
      assert.equal(asnAt(first), `AS${asn4[i]}`, `row ${i}, first`);
      assert.equal(asnAt(last), `AS${asn4[i]}`, `row ${i}, last`);
      // Between this range and the next (across /16 boundaries too) no network is answered.
      if (last < 0xffffffff && (i + 1 === first4.length || (first4[i + 1] as number) > last + 1)) {
        assert.equal(asnAt(last + 1), undefined, `after row ${i}`);
        gaps++;
      }
    }
    assert.ok(gaps > 1000, `gaps: ${gaps}`);
    assert.equal(asnAt(0), undefined);
  });
});
