import { lastAtOrBelow } from '../../src/ipinfo/data/cidr-set.ts';
import type { Cidr } from '../../src/net/cidr.ts';
import { type IpAddress, parseIp, unmapIpv4 } from '../../src/net/ip-address.ts';

// The feeds' lookup table before issue 35 (src/ipinfo/data/cidr-set.ts replaced it): kept as the
// reference cidr-set.test.ts compares the columns with.

export interface RangeTableEntry<V> {
  readonly cidr: Cidr;
  readonly value: V;
}

/**
 * Longest-prefix-match lookups over a fixed set of CIDRs.
 *
 * Built once: the CIDRs are flattened into sorted, disjoint [first, last] segments, each carrying
 * the value of the most specific CIDR covering it; a lookup is one binary search (O(log n)) over
 * typed arrays. Chosen over a trie because the tables are rebuilt wholesale when a feed refreshes,
 * never edited, and flat arrays are compact (about 24 bytes a segment for IPv4) and cache-friendly.
 *
 * - CIDRs nest or are disjoint, never partly overlap, which is what makes the flattening a
 *   single sweep with a stack.
 * - The same CIDR given twice: the later entry wins, so callers can layer overrides.
 * - Neighbouring segments with the same value (===) are merged, so adjacent feed lines cost one
 *   segment.
 * - `lookup` takes text and classifies `::ffff:a.b.c.d` as a.b.c.d (it is an IPv4 peer).
 */
export interface RangeTable<V> {
  lookup(ip: string): V | undefined;
  lookupAddress(address: IpAddress): V | undefined;
  /** Disjoint segments after flattening and merging, for both families (for stats and tests). */
  readonly segmentCount: number;
}

type Segment<V> = { first: bigint; last: bigint; value: V };
type Interval<V> = { first: bigint; last: bigint; value: V; order: number };

export function buildRangeTable<V>(entries: Iterable<RangeTableEntry<V>>): RangeTable<V> {
  const v4: Interval<V>[] = [];
  const v6: Interval<V>[] = [];
  let order = 0;
  for (const { cidr, value } of entries) {
    (cidr.version === 4 ? v4 : v6).push({ first: BigInt(cidr.first), last: BigInt(cidr.last), value, order: order++ });
  }
  const segments4 = flatten(v4);
  const segments6 = flatten(v6);

  const starts4 = Float64Array.from(segments4, (s) => Number(s.first));
  const ends4 = Float64Array.from(segments4, (s) => Number(s.last));
  const values4 = segments4.map((s) => s.value);
  const starts6 = segments6.map((s) => s.first);
  const ends6 = segments6.map((s) => s.last);
  const values6 = segments6.map((s) => s.value);

  function lookupAddress(address: IpAddress): V | undefined {
    if (address.version === 4) {
      const i = lastAtOrBelow(starts4, address.value);
      return i >= 0 && (ends4[i] as number) >= address.value ? values4[i] : undefined;
    }
    const i = lastAtOrBelow(starts6, address.value);
    return i >= 0 && (ends6[i] as bigint) >= address.value ? values6[i] : undefined;
  }

  return {
    lookupAddress,
    lookup(ip: string): V | undefined {
      const address = parseIp(ip);
      return address === null ? undefined : lookupAddress(unmapIpv4(address));
    },
    segmentCount: segments4.length + segments6.length,
  };
}

/**
 * Sweeps intervals sorted by start (outer before inner, earlier before later for identical ones)
 * with a stack of the intervals that are open at the cursor; the top of the stack is the most
 * specific one, so whatever is emitted for a stretch carries the top's value.
 */
function flatten<V>(intervals: Interval<V>[]): Segment<V>[] {
  intervals.sort((a, b) => compare(a.first, b.first) || compare(b.last, a.last) || a.order - b.order);
  const segments: Segment<V>[] = [];
  const stack: Interval<V>[] = [];
  let cursor = 0n;

  const emit = (first: bigint, last: bigint, value: V) => {
    if (first > last) return;
    const previous = segments.at(-1);
    if (previous !== undefined && previous.value === value && previous.last + 1n === first) previous.last = last;
    else segments.push({ first, last, value });
  };
  const closeTop = () => {
    const top = stack.pop() as Interval<V>;
    emit(cursor, top.last, top.value);
    if (cursor <= top.last) cursor = top.last + 1n;
  };

  for (const interval of intervals) {
    while (stack.length > 0 && (stack.at(-1) as Interval<V>).last < interval.first) closeTop();
    const enclosing = stack.at(-1);
    if (enclosing !== undefined) emit(cursor, interval.first - 1n, enclosing.value);
    cursor = interval.first;
    stack.push(interval);
  }
  while (stack.length > 0) closeTop();
  return segments;
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
