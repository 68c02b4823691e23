import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAsnIndex, ipv4Cidrs, ipv6Cidrs } from '../../../src/ipinfo/data/asn-index.ts';
import { decodeAsnRanges, encodeAsnRanges } from '../../../src/ipinfo/data/asn-ranges.ts';
import { embeddedAsnRanges } from '../../../src/ipinfo/data/embedded-data.ts';
import { parseCidr } from '../../../src/net/cidr.ts';
import { parseIp } from '../../../src/net/ip-address.ts';

const v4 = (ip: string) => (parseIp(ip) as { value: number }).value;
const v6 = (ip: string) => (parseIp(ip) as { value: bigint }).value;

describe('the fewest CIDRs covering a range exactly', () => {
  it('IPv4: one CIDR when it is one, several when not', () => {
    assert.deepEqual(ipv4Cidrs(v4('10.0.0.0'), v4('10.0.1.255')), ['10.0.0.0/23']);
    assert.deepEqual(ipv4Cidrs(v4('10.0.1.0'), v4('10.0.2.255')), ['10.0.1.0/24', '10.0.2.0/24']);
    assert.deepEqual(ipv4Cidrs(v4('10.0.0.1'), v4('10.0.0.6')), [
      '10.0.0.1/32',
      '10.0.0.2/31',
      '10.0.0.4/31',
      '10.0.0.6/32',
    ]);
    assert.deepEqual(ipv4Cidrs(0, 2 ** 32 - 1), ['0.0.0.0/0']);
    assert.deepEqual(ipv4Cidrs(v4('128.0.0.0'), v4('255.255.255.255')), ['128.0.0.0/1']);
  });
  it('IPv6', () => {
    assert.deepEqual(ipv6Cidrs(v6('2001:db8::'), v6('2001:db8:1:ffff:ffff:ffff:ffff:ffff')), ['2001:db8::/47']);
    assert.deepEqual(ipv6Cidrs(v6('2001:db8::1'), v6('2001:db8::2')), ['2001:db8::1/128', '2001:db8::2/128']);
    assert.deepEqual(ipv6Cidrs(v6('2001:db8:1::'), v6('2001:db8:2:ffff:ffff:ffff:ffff:ffff')), [
      '2001:db8:1::/48',
      '2001:db8:2::/48',
    ]);
  });
});

describe('the ASN -> prefixes index', () => {
  it('merges touching ranges, splits non-CIDR ranges, sorts, and counts IPv4 addresses', () => {
    const row = (first: string, last: string, asn: number, organisation = 'Example') => ({
      first: v4(first),
      last: v4(last),
      asn,
      organisation,
    });
    const ranges = decodeAsnRanges(
      encodeAsnRanges(
        {
          ipv4: [
            row('10.0.0.0', '10.0.0.255', 64500),
            row('10.0.1.0', '10.0.1.255', 64500), // touches the one before: one /23
            row('10.0.2.0', '10.0.2.255', 64501, 'Other'),
            row('10.0.3.0', '10.0.5.255', 64500), // no single CIDR: /24 + /23
          ],
          ipv6: [
            {
              first: v6('2001:db8::'),
              last: v6('2001:db8:0:ffff:ffff:ffff:ffff:ffff'),
              asn: 64500,
              organisation: 'Example',
            },
          ],
        },
        new Date(0),
      ),
    );
    // The rows are grouped by AS when first asked, not by every data load.
    let grouped = 0;
    const rows = Object.create(ranges.rows, {
      asn4: {
        get: () => {
          grouped++;
          return ranges.rows.asn4;
        },
      },
    });
    const index = buildAsnIndex(rows);
    assert.equal(grouped, 0);
    assert.deepEqual(index.prefixesOf(64500), {
      asn: 64500,
      name: 'Example',
      ipv4: ['10.0.0.0/23', '10.0.3.0/24', '10.0.4.0/23'],
      ipv6: ['2001:db8::/48'],
      ipv4Addresses: 512 + 768,
    });
    assert.deepEqual(index.prefixesOf(64501)?.ipv4, ['10.0.2.0/24']);
    assert.equal(index.prefixesOf(64502), undefined);
    assert.equal(grouped, 1);
  });

  it("the embedded data: each AS's prefixes cover exactly its own rows", async () => {
    const { ranges } = await embeddedAsnRanges('data/ipinfo/embedded');
    const index = buildAsnIndex(ranges.rows);
    const { rows } = ranges;
    for (const asn of [15169, 16509, 174, 13335]) {
      const prefixes = index.prefixesOf(asn);
      assert.ok(prefixes, `AS${asn} known`);
      // The rows of the AS, from the data itself (a plain scan, not the index).
      const own: [number, number][] = [];
      for (let i = 0; i < rows.asn4.length; i++) {
        if (rows.asn4[i] === asn) own.push([rows.first4[i] as number, rows.last4[i] as number]);
      }
      const cidrs = prefixes.ipv4.map((text) => {
        const parsed = parseCidr(text);
        assert.ok(parsed.ok && parsed.cidr.version === 4, text);
        return [parsed.cidr.first, parsed.cidr.last] as [number, number];
      });
      for (let k = 1; k < cidrs.length; k++) {
        assert.ok((cidrs[k]?.[0] as number) > (cidrs[k - 1]?.[1] as number), 'sorted and disjoint');
      }
      const size = (list: [number, number][]) => list.reduce((sum, [first, last]) => sum + last - first + 1, 0);
      assert.equal(size(cidrs), size(own), `AS${asn}: as many addresses as its rows`);
      assert.equal(prefixes.ipv4Addresses, size(own));
      // Every row lies inside one prefix (and the sizes match, so the prefixes hold nothing else).
      for (const [first, last] of own) {
        assert.ok(
          cidrs.some(([from, to]) => from <= first && last <= to) ||
            // A row split in several CIDRs: every part inside the row.
            cidrs.filter(([from, to]) => from >= first && to <= last).reduce((s, [f, t]) => s + t - f + 1, 0) ===
              last - first + 1,
          `AS${asn} row ${first}-${last} covered`,
        );
      }
      const wide = (hi: BigUint64Array, lo: BigUint64Array, i: number) =>
        ((hi[i] as bigint) << 64n) | (lo[i] as bigint);
      let own6 = 0n;
      for (let i = 0; i < rows.asn6.length; i++) {
        if (rows.asn6[i] === asn) own6 += wide(rows.lastHi, rows.lastLo, i) - wide(rows.firstHi, rows.firstLo, i) + 1n;
      }
      const cidrs6 = prefixes.ipv6
        .map((text) => parseCidr(text))
        .map((parsed) => {
          assert.ok(parsed.ok && parsed.cidr.version === 6);
          return parsed.cidr.last - parsed.cidr.first + 1n;
        });
      assert.equal(
        cidrs6.reduce((sum, n) => sum + n, 0n),
        own6,
        `AS${asn}: as many IPv6 addresses as its rows`,
      );
    }
    assert.equal(index.prefixesOf(15169)?.name, 'Google LLC');
    assert.ok(index.prefixesOf(15169)?.ipv4.includes('8.8.8.0/24'));
  });
});
