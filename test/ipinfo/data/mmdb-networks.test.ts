import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildAsnIndex } from '../../../src/ipinfo/data/asn-index.ts';
import { createNetworkReader } from '../../../src/ipinfo/data/geo.ts';
import { parseCidr } from '../../../src/net/cidr.ts';
import { fullMmdbSourcesSkip, mmdb, mmdbPath } from '../../support/mmdb-fixtures.ts';

type Source = Record<string, { autonomous_system_number?: number; autonomous_system_organization?: string }>[];

/** Merged [first, last] ranges of a list of CIDRs, per family (written here, not through the product). */
function mergedRanges(cidrs: string[]): { v4: [bigint, bigint][]; v6: [bigint, bigint][] } {
  const out = { v4: [] as [bigint, bigint][], v6: [] as [bigint, bigint][] };
  const parsed = cidrs.map((text) => {
    const result = parseCidr(text);
    assert.ok(result.ok, text);
    return result.cidr;
  });
  for (const family of [4, 6] as const) {
    const ranges = parsed
      .filter((c) => c.version === family)
      .map((c) => [BigInt(c.first), BigInt(c.last)] as [bigint, bigint])
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const merged: [bigint, bigint][] = [];
    for (const range of ranges) {
      const last = merged.at(-1);
      if (last === undefined || last[1] + 1n < range[0]) merged.push([...range]);
      else if (range[1] > last[1]) last[1] = range[1];
    }
    out[family === 4 ? 'v4' : 'v6'] = merged;
  }
  return out;
}

/** The parts of `ranges` outside every one of `holes` (both sorted, merged). */
function subtract(ranges: [bigint, bigint][], holes: [bigint, bigint][]): [bigint, bigint][] {
  let result = ranges;
  for (const [from, to] of holes) {
    result = result.flatMap(([first, last]): [bigint, bigint][] => {
      if (to < first || from > last) return [[first, last]];
      const parts: [bigint, bigint][] = [];
      if (from > first) parts.push([first, from - 1n]);
      if (to < last) parts.push([to + 1n, last]);
      return parts;
    });
  }
  return result;
}

describe("MaxMind-format ASN databases: every AS's networks from the tree", {
  skip: fullMmdbSourcesSkip,
}, () => {
  for (const name of ['GeoLite2-ASN-Test', 'GeoIP2-ISP-Test']) {
    it(`${name}: the prefixes of each AS are exactly the networks its source JSON lists`, () => {
      const source = JSON.parse(readFileSync(mmdbPath(name).replace(/\.mmdb$/, '.json'), 'utf8')) as Source;
      const byAsn = new Map<number, string[]>();
      const all: { cidr: string; asn: number | undefined }[] = [];
      for (const entry of source) {
        for (const [network, record] of Object.entries(entry)) {
          // The source writes IPv4 networks in an IPv6 tree as ::a.b.c.d/n (96 + n).
          const ipv4InV6 = /^::(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(network);
          const cidr = ipv4InV6 ? `${ipv4InV6[1]}/${Number(ipv4InV6[2]) - 96}` : network;
          all.push({ cidr, asn: record.autonomous_system_number });
        }
      }
      for (const { cidr, asn } of all) if (asn !== undefined) byAsn.set(asn, [...(byAsn.get(asn) ?? []), cidr]);
      assert.ok(byAsn.size > 5, 'the source lists several ASes');
      const index = buildAsnIndex(createNetworkReader(mmdb(name)).rows);
      for (const [asn, networks] of byAsn) {
        const prefixes = index.prefixesOf(asn);
        assert.ok(prefixes, `AS${asn}`);
        // A more specific network of another record (or of none) inside one of this AS's is not this AS's.
        const range = (cidr: string) => {
          const parsed = parseCidr(cidr);
          assert.ok(parsed.ok);
          return [parsed.cidr.version, BigInt(parsed.cidr.first), BigInt(parsed.cidr.last)] as const;
        };
        const own = networks.map(range);
        const inside = all.filter((n) => {
          if (n.asn === asn) return false;
          const [version, first, last] = range(n.cidr);
          return own.some(([v, f, l]) => v === version && f <= first && last <= l && last - first < l - f);
        });
        const others = mergedRanges(inside.map((n) => n.cidr));
        const expected = mergedRanges(networks);
        for (const family of ['v4', 'v6'] as const) expected[family] = subtract(expected[family], others[family]);
        assert.deepEqual(mergedRanges([...prefixes.ipv4, ...prefixes.ipv6]), expected, `AS${asn}`);
      }
      assert.equal(index.prefixesOf(4_000_000_000), undefined);
    });
  }

  it('GeoLite2-ASN-Test: names from the records; one AS answered at once', () => {
    const index = buildAsnIndex(createNetworkReader(mmdb('GeoLite2-ASN-Test')).rows);
    const telstra = index.prefixesOf(1221);
    assert.equal(telstra?.name, 'Telstra Pty Ltd');
    assert.ok(telstra?.ipv4.includes('1.128.0.0/11'));
  });
});
