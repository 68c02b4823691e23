import { type Cidr, parseCidr } from '../../net/cidr.ts';
import { dottedQuadValue, type IpAddress } from '../../net/ip-address.ts';

/**
 * A feed's networks read straight into columns: an IPv4 line costs two numbers in a Float64Array,
 * no string, Cidr, BigInt or segment object. Objects for the 60,000 lines of every feed (~25 MB)
 * lived until the table was built, so they were promoted: the old generation grew to 18 MB for 4 MB
 * live, and stayed (docs/performance.md, "Memory (issue 35)"). IPv6 lines (a few thousand) go
 * through parseCidr. The lines a parser of feeds.ts accepts, and only those, are kept (test).
 */
export class CidrColumns {
  private firsts: Float64Array<ArrayBuffer> = new Float64Array(1024);
  private lasts: Float64Array<ArrayBuffer> = new Float64Array(1024);
  v4Count = 0;
  readonly v6: Cidr[] = [];

  add(cidr: Cidr): void {
    if (cidr.version === 6) this.v6.push(cidr);
    else this.addV4(cidr.first, cidr.last);
  }

  private addV4(first: number, last: number): void {
    if (this.v4Count === this.firsts.length) {
      this.firsts = grow(this.firsts);
      this.lasts = grow(this.lasts);
    }
    this.firsts[this.v4Count] = first;
    this.lasts[this.v4Count] = last;
    this.v4Count++;
  }

  /**
   * Adds the networks of a feed's text (`#` comments, blank lines and CRs ignored, as feeds.ts
   * reads them); `addresses`: a line with a prefix length is refused (the Tor exit list). Returns
   * how many lines were taken.
   */
  addText(text: string, addresses = false): number {
    let taken = 0;
    let hash = -1;
    for (let start = 0; start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      if (hash !== text.length && hash < start) {
        hash = text.indexOf('#', start);
        if (hash === -1) hash = text.length;
      }
      const contentEnd = Math.min(hash, end);
      if (this.addV4Line(text, start, contentEnd, addresses)) taken++;
      else {
        const content = text.slice(start, contentEnd).trim();
        if (content !== '' && !(addresses && content.includes('/'))) {
          const parsed = parseCidr(content);
          if (parsed.ok) {
            this.add(parsed.cidr);
            taken++;
          }
        }
      }
      start = end + 1;
    }
    return taken;
  }

  /** A plain `a.b.c.d` or `a.b.c.d/n` line, taken; anything else is left to parseCidr. */
  private addV4Line(text: string, from: number, to: number, addresses: boolean): boolean {
    let start = from;
    let end = to;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    let addressEnd = start;
    while (addressEnd < end && text.charCodeAt(addressEnd) !== 47 /* / */) addressEnd++;
    if (addressEnd - start < 7 || addressEnd - start > 15) return false;
    const value = dottedQuadValue(text.slice(start, addressEnd));
    if (value < 0) return false;
    let length = 32;
    if (addressEnd < end) {
      if (addresses) return false;
      const digits = end - addressEnd - 1;
      if (digits < 1 || digits > 2) return false;
      length = 0;
      for (let i = addressEnd + 1; i < end; i++) {
        const code = text.charCodeAt(i);
        if (code < 48 || code > 57 || (i === addressEnd + 1 && code === 48 && digits > 1)) return false;
        length = length * 10 + (code - 48);
      }
      if (length > 32) return false;
    }
    const size = 2 ** (32 - length);
    if (value % size !== 0) return false;
    this.addV4(value, value + size - 1);
    return true;
  }

  /** The union of the networks, for lookups; the columns are left as they were. */
  build(): CidrSet {
    return new CidrSet(this.firsts.subarray(0, this.v4Count), this.lasts.subarray(0, this.v4Count), this.v6);
  }
}

export class CidrSet {
  private readonly starts4: Float64Array;
  private readonly ends4: Float64Array;
  private readonly starts6: bigint[] = [];
  private readonly ends6: bigint[] = [];
  readonly coverage: { readonly ipv4: boolean; readonly ipv6: boolean };

  constructor(firsts: Float64Array, lasts: Float64Array, v6: readonly Cidr[]) {
    this.coverage = { ipv4: firsts.length > 0, ipv6: v6.length > 0 };
    const order = new Uint32Array(firsts.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort((a, b) => (firsts[a] as number) - (firsts[b] as number));
    const starts = new Float64Array(firsts.length);
    const ends = new Float64Array(firsts.length);
    let count = 0;
    for (const i of order) {
      const first = firsts[i] as number;
      const last = lasts[i] as number;
      // Overlapping or adjacent networks make one range.
      if (count > 0 && first <= (ends[count - 1] as number) + 1) {
        if (last > (ends[count - 1] as number)) ends[count - 1] = last;
      } else {
        starts[count] = first;
        ends[count] = last;
        count++;
      }
    }
    this.starts4 = starts.slice(0, count);
    this.ends4 = ends.slice(0, count);
    const sorted = [...v6].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    for (const { first, last } of sorted as { first: bigint; last: bigint }[]) {
      const at = this.ends6.length - 1;
      if (at >= 0 && first <= (this.ends6[at] as bigint) + 1n) {
        if (last > (this.ends6[at] as bigint)) this.ends6[at] = last;
      } else {
        this.starts6.push(first);
        this.ends6.push(last);
      }
    }
  }

  has(address: IpAddress): boolean {
    if (address.version === 4) {
      const i = lastAtOrBelow(this.starts4, address.value);
      return i >= 0 && (this.ends4[i] as number) >= address.value;
    }
    const i = lastAtOrBelow(this.starts6, address.value);
    return i >= 0 && (this.ends6[i] as bigint) >= address.value;
  }
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 13;

function grow(array: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Index of the last element <= key in an ascending array, -1 when every element is above it. */
export function lastAtOrBelow<K extends number | bigint>(sorted: ArrayLike<K>, key: K): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as K) <= key) low = mid + 1;
    else high = mid - 1;
  }
  return high;
}
