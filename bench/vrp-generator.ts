// A VRP set shaped like the real one, for bench:rpki and the json-rpki scenario of bench:instructions:
// rpki-client's JSON export (the production parser reads it), the same set from the same seed and
// the same embedded ASN data. Every VRP is placed on the routed space of that data (a random row,
// a random address in it, cut to the VRP's length), so VRPs land where the service's routes are,
// nest inside a range as assignments inside an allocation do, and mostly name the route's origin.
import type { AsnRangeColumns } from '../src/ipinfo/data/asn-ranges.ts';
import { formatIp } from '../src/net/ip-address.ts';
import { xorshift } from '../test/support/public-addresses.ts';

/** Prefix length -> share of the family's VRPs (rpki-client's set, 2025-2026: mostly /24 and /48). */
const IPV4_LENGTHS: Record<number, number> = {
  24: 0.56,
  23: 0.08,
  22: 0.12,
  21: 0.04,
  20: 0.05,
  19: 0.03,
  18: 0.025,
  17: 0.02,
  16: 0.05,
  15: 0.004,
  14: 0.004,
  13: 0.003,
  12: 0.002,
  11: 0.001,
  10: 0.0005,
  9: 0.0003,
  8: 0.0002,
};
const IPV6_LENGTHS: Record<number, number> = {
  48: 0.45,
  47: 0.01,
  46: 0.01,
  44: 0.06,
  40: 0.06,
  36: 0.03,
  33: 0.02,
  32: 0.22,
  31: 0.003,
  30: 0.003,
  29: 0.04,
  28: 0.003,
  24: 0.002,
  20: 0.001,
  19: 0.001,
  56: 0.01,
  64: 0.005,
};
/** The longest maxLength a VRP of the family gets: operators allow deaggregation down to /24 and /48. */
const LONGEST = { 4: 24, 6: 48 } as const;
/** Of the VRPs shorter than LONGEST, the share whose maxLength is their own length (~80% of all VRPs). */
const EXACT_SHARE = { 4: 0.55, 6: 0.64 } as const;

export interface GeneratedVrps {
  readonly json: string;
  readonly ipv4: number;
  readonly ipv6: number;
  readonly ases: number;
  readonly as0: number;
  readonly exactMaxLength: number;
  /** VRPs per group of prefix lengths, e.g. `IPv4 /22-/23`. */
  readonly lengths: Record<string, number>;
}

const lengthGroup = (version: 4 | 6, length: number) =>
  version === 4
    ? length === 24
      ? 'IPv4 /24'
      : length >= 22
        ? 'IPv4 /22-/23'
        : length >= 16
          ? 'IPv4 /16-/21'
          : 'IPv4 /8-/15'
    : length === 48
      ? 'IPv6 /48'
      : length >= 32 && length < 48
        ? 'IPv6 /32-/47'
        : length < 32
          ? 'IPv6 < /32'
          : 'IPv6 > /48';

export function generateVrpJson(rows: AsnRangeColumns, total = 1_000_000, seed = 0x5eed_2026): GeneratedVrps {
  const next = xorshift(seed);
  const unit = () => next() / 2 ** 32;
  const pick = (table: Record<number, number>) => {
    const weights = Object.entries(table);
    let x = unit() * weights.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [length, weight] of weights) {
      x -= weight;
      if (x < 0) return Number(length);
    }
    return Number(weights[0]?.[0]);
  };
  const rowOf = { 4: rows.asn4, 6: rows.asn6 } as const;
  const seen = new Set<string>();
  const prefixes = new Set<string>();
  const lengths: Record<string, number> = {};
  const roas: string[] = [];
  const ases = new Set<number>();
  const counts = { 4: 0, 6: 0, as0: 0, exact: 0 };
  let last = { prefix: '', maxLength: 0, row: 0, version: 4 as 4 | 6 };
  const targets = { 4: Math.round(total * 0.6), 6: total - Math.round(total * 0.6) };

  /** The row's length as a route (one CIDR), or undefined when the data merged several prefixes into it. */
  const routeLength = (version: 4 | 6, row: number): number | undefined => {
    if (version === 4) {
      const first = rows.first4[row] as number;
      const bits = Math.log2((rows.last4[row] as number) - first + 1);
      return Number.isInteger(bits) && first % 2 ** bits === 0 ? 32 - bits : undefined;
    }
    const first = ((rows.firstHi[row] as bigint) << 64n) | (rows.firstLo[row] as bigint);
    const size = ((rows.lastHi[row] as bigint) << 64n) + (rows.lastLo[row] as bigint) - first + 1n;
    return (size & (size - 1n)) === 0n && first % size === 0n ? 128 - (size.toString(2).length - 1) : undefined;
  };
  /** log2 of the row's size, rounded down. */
  const rowBits = (version: 4 | 6, row: number): number => {
    if (version === 4) return Math.floor(Math.log2((rows.last4[row] as number) - (rows.first4[row] as number) + 1));
    const first = ((rows.firstHi[row] as bigint) << 64n) | (rows.firstLo[row] as bigint);
    const size = ((rows.lastHi[row] as bigint) << 64n) + (rows.lastLo[row] as bigint) - first + 1n;
    return size.toString(2).length - 1;
  };
  const place = (version: 4 | 6, row: number, length: number): string => {
    if (version === 4) {
      const first = rows.first4[row] as number;
      const address = first + Math.floor(unit() * ((rows.last4[row] as number) - first + 1));
      const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
      return `${formatIp({ version: 4, value: (address & mask) >>> 0 })}/${length}`;
    }
    const first = ((rows.firstHi[row] as bigint) << 64n) | (rows.firstLo[row] as bigint);
    const size = ((rows.lastHi[row] as bigint) << 64n) + (rows.lastLo[row] as bigint) - first + 1n;
    const random = (BigInt(next()) << 96n) | (BigInt(next()) << 64n) | (BigInt(next()) << 32n) | BigInt(next());
    const host = (1n << BigInt(128 - length)) - 1n;
    return `${formatIp({ version: 6, value: (first + (random % size)) & ~host })}/${length}`;
  };

  /**
   * A new prefix of `length` bits and the row it was placed on. ROAs follow announcements: a route
   * of that length if a few draws find one, else a prefix inside one row (a more-specific of a
   * range the data merged, or space not announced), never one over several rows: placed by row
   * count, such aggregates piled up over the dense PI blocks (ten covering VRPs per /48 route).
   * Undefined when every draw hits a prefix already taken.
   */
  const drawPrefix = (version: 4 | 6, length: number): { row: number; prefix: string } | undefined => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const row = Math.floor(unit() * rowOf[version].length);
      const route = routeLength(version, row);
      if (attempt < 30 && route !== length) continue;
      if (attempt >= 30 && rowBits(version, row) < (version === 4 ? 32 : 128) - length) continue;
      const prefix = place(version, row, length);
      if (!prefixes.has(prefix)) return { row, prefix };
      // Taken: the routes of this kind are likely used up, so on to the next kind.
      attempt = Math.max(attempt, 29);
    }
    return undefined;
  };

  while (counts[4] + counts[6] < total) {
    const version: 4 | 6 = counts[4] < targets[4] && (counts[6] >= targets[6] || unit() < 0.6) ? 4 : 6;
    // One prefix in 25 has a second VRP (another AS: anycast, DDoS protection, a move between ASes).
    const again = last.version === version && unit() < 0.04;
    // Each prefix is drawn once (beyond `again`): short ones would otherwise pile dozens of ASes on a few allocations.
    const drawn = again ? last : drawPrefix(version, pick(version === 4 ? IPV4_LENGTHS : IPV6_LENGTHS));
    if (drawn === undefined) continue;
    const { row, prefix } = drawn;
    prefixes.add(prefix);
    const own = Number(prefix.slice(prefix.indexOf('/') + 1));
    const longest = LONGEST[version];
    const maxLength = again
      ? last.maxLength
      : own >= longest || unit() < EXACT_SHARE[version]
        ? own
        : own + 1 + Math.floor(unit() * (longest - own));
    const draw = unit();
    // Most VRPs name the route's origin; some another AS of the data; a few AS0 (RFC 7607: "never route this").
    const asn =
      draw < 0.01
        ? 0
        : draw < 0.88 && !again
          ? (rowOf[version][row] as number)
          : (rowOf[version][Math.floor(unit() * rowOf[version].length)] as number);
    const key = `${prefix} ${maxLength} ${asn}`;
    if (seen.has(key)) continue;
    seen.add(key);
    last = { prefix, maxLength, row, version };
    counts[version]++;
    if (asn === 0) counts.as0++;
    if (maxLength === own) counts.exact++;
    const group = lengthGroup(version, own);
    lengths[group] = (lengths[group] ?? 0) + 1;
    ases.add(asn);
    roas.push(`{"asn":${asn},"prefix":"${prefix}","maxLength":${maxLength},"ta":"bench","expires":1800000000}`);
  }
  const metadata = { buildmachine: 'bench/vrp-generator.ts', generated: Math.floor(Date.now() / 1000), roas: total };
  return {
    json: `{"metadata":${JSON.stringify(metadata)},"roas":[\n${roas.join(',\n')}\n]}\n`,
    ipv4: counts[4],
    ipv6: counts[6],
    ases: ases.size,
    as0: counts.as0,
    exactMaxLength: counts.exact,
    lengths,
  };
}
