import { formatCidr } from '../../net/cidr.ts';
import type { AsnRangeColumns } from './asn-ranges.ts';

/** What the ASN data says about one AS: its name and its address space, as sorted CIDRs. */
export interface AsnPrefixes {
  readonly asn: number;
  /** The organisation (empty when the data has none). */
  readonly name: string;
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
  /** Addresses in the IPv4 prefixes. */
  readonly ipv4Addresses: number;
}

export interface AsnIndex {
  /** Undefined for an AS the data holds no range of. */
  prefixesOf(asn: number): AsnPrefixes | undefined;
}

/** Answers kept per index (a data load); the largest AS has a few thousand prefixes. */
const ANSWERS_KEPT = 2_000;

/**
 * ASN -> its rows, built once per data load, when first asked: the row numbers of each family grouped by AS (a
 * counting sort, stable, so each AS's rows stay in address order). An answer then walks only that
 * AS's rows: adjacent ranges are merged, and every merged range becomes the fewest CIDRs that
 * cover exactly it (a range that is not a CIDR is several). Built in ~0.1 s for the half million
 * rows of the embedded data; an answer for the largest AS takes a few milliseconds, and is kept.
 */
export function buildAsnIndex(rows: AsnRangeColumns): AsnIndex {
  // 8 bytes a row, 4.1 MB for the embedded data's 515,000 rows (in every worker): not held by an
  // instance that is never asked for an AS's prefixes (issue 35).
  let groups: { v4: ReturnType<typeof groupByAsn>; v6: ReturnType<typeof groupByAsn> } | undefined;
  const answers = new Map<number, AsnPrefixes>();

  function build(asn: number): AsnPrefixes | undefined {
    groups ??= { v4: groupByAsn(rows.asn4), v6: groupByAsn(rows.asn6) };
    const of4 = groups.v4.rowsOf(asn);
    const of6 = groups.v6.rowsOf(asn);
    if (of4.length === 0 && of6.length === 0) return undefined;
    const name = of4.length > 0 ? rows.organisation(4, of4[0] as number) : rows.organisation(6, of6[0] as number);
    const ipv4: string[] = [];
    let ipv4Addresses = 0;
    forMergedRanges(
      of4,
      (i) => rows.first4[i] as number,
      (i) => rows.last4[i] as number,
      (first, last) => {
        ipv4Addresses += last - first + 1;
        for (const cidr of ipv4Cidrs(first, last)) ipv4.push(cidr);
      },
    );
    const ipv6: string[] = [];
    const wide = (hi: BigUint64Array, lo: BigUint64Array, i: number) => ((hi[i] as bigint) << 64n) | (lo[i] as bigint);
    forMergedRanges(
      of6,
      (i) => wide(rows.firstHi, rows.firstLo, i),
      (i) => wide(rows.lastHi, rows.lastLo, i),
      (first, last) => {
        for (const cidr of ipv6Cidrs(first, last)) ipv6.push(cidr);
      },
    );
    return { asn, name, ipv4, ipv6, ipv4Addresses };
  }

  return {
    prefixesOf(asn) {
      let answer = answers.get(asn);
      if (answer === undefined) {
        answer = build(asn);
        if (answer === undefined) return undefined;
        if (answers.size >= ANSWERS_KEPT) answers.clear();
        answers.set(asn, answer);
      }
      return answer;
    },
  };
}

/**
 * Row numbers grouped by AS, as one sorted Float64Array of `asn * 2^22 + row` (exact: below 2^54):
 * a native numeric sort and two binary searches, where a Map per AS took twice as long to build.
 */
const ROW_BITS = 2 ** 22;

function groupByAsn(asns: Uint32Array) {
  if (asns.length > ROW_BITS) throw new Error(`ASN index: ${asns.length} rows, at most ${ROW_BITS}`);
  const keys = new Float64Array(asns.length);
  for (let i = 0; i < asns.length; i++) keys[i] = (asns[i] as number) * ROW_BITS + i;
  keys.sort();
  const firstAtOrAbove = (key: number) => {
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((keys[mid] as number) < key) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  return {
    rowsOf(asn: number): Uint32Array {
      const from = firstAtOrAbove(asn * ROW_BITS);
      const to = firstAtOrAbove((asn + 1) * ROW_BITS);
      const rows = new Uint32Array(to - from);
      for (let k = from; k < to; k++) rows[k - from] = (keys[k] as number) - asn * ROW_BITS;
      return rows;
    },
  };
}

// Exactly the next address: one more than the end of the previous range.
const follows = <N extends number | bigint>(last: N, first: N) =>
  typeof last === 'bigint' ? (first as bigint) === last + 1n : (first as number) === (last as number) + 1;

/** Calls `visit` with each run of touching ranges merged into one (rows in address order). */
function forMergedRanges<N extends number | bigint>(
  rowNumbers: Uint32Array,
  firstOf: (i: number) => N,
  lastOf: (i: number) => N,
  visit: (first: N, last: N) => void,
): void {
  let first: N | undefined;
  let last: N | undefined;
  for (const i of rowNumbers) {
    const rowFirst = firstOf(i);
    const rowLast = lastOf(i);
    if (last !== undefined && follows(last, rowFirst)) {
      last = rowLast;
      continue;
    }
    if (first !== undefined && last !== undefined) visit(first, last);
    first = rowFirst;
    last = rowLast;
  }
  if (first !== undefined && last !== undefined) visit(first, last);
}

/** The fewest CIDRs that cover exactly first..last, in order. */
export function ipv4Cidrs(first: number, last: number): string[] {
  const cidrs: string[] = [];
  let at = first;
  while (at <= last) {
    // The largest block aligned at `at` (its lowest set bit) that does not pass `last`.
    const aligned = at === 0 ? 2 ** 32 : (at & -at) >>> 0 || 2 ** 31;
    const remaining = last - at + 1;
    const fits = remaining >= 2 ** 32 ? 2 ** 32 : 2 ** (31 - Math.clz32(remaining));
    const size = Math.min(aligned, fits);
    cidrs.push(`${formatIpv4(at)}/${32 - Math.log2(size)}`);
    at += size;
  }
  return cidrs;
}

export function ipv6Cidrs(first: bigint, last: bigint): string[] {
  const cidrs: string[] = [];
  let at = first;
  while (at <= last) {
    const aligned = trailingZeros128(at);
    const fits = bitLength128(last - at + 1n) - 1;
    const bits = Math.min(aligned, fits);
    const size = 1n << BigInt(bits);
    cidrs.push(formatCidr({ version: 6, first: at, last: at + size - 1n, prefixLength: 128 - bits }));
    at += size;
  }
  return cidrs;
}

// 32 bits at a time as plain numbers: several times faster than bigint bit loops or toString(2).
function trailingZeros128(value: bigint): number {
  let rest = value;
  for (let zeros = 0; zeros < 128; zeros += 32) {
    const word = Number(rest & 0xffffffffn);
    if (word !== 0) return zeros + 31 - Math.clz32(word & -word);
    rest >>= 32n;
  }
  return 128;
}

function bitLength128(value: bigint): number {
  if (value >> 128n !== 0n) return 129;
  for (let shift = 96; shift >= 0; shift -= 32) {
    const word = Number((value >> BigInt(shift)) & 0xffffffffn);
    if (word !== 0) return shift + 32 - Math.clz32(word);
  }
  return 0;
}

function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}
