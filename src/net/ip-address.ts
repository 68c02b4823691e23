import { isIPv6 } from 'node:net';

/**
 * Numbers make range checks and binary search plain comparisons; IPv4 stays a `number` because
 * that is the hot path (most lookups) and bigint arithmetic is several times slower.
 */
export type IpAddress =
  | { readonly version: 4; readonly value: number }
  | { readonly version: 6; readonly value: bigint };

const MAPPED_PREFIX = 0xffffn << 32n; // ::ffff:0:0/96
const MAPPED_MASK = ((1n << 96n) - 1n) << 32n;

/**
 * Exactly what `node:net` `isIP` accepts (so not `127.1`), except a zone index (`fe80::1%eth0`): a
 * zone is meaningful only on the host that wrote it, never in a client address or a public target,
 * so it is rejected rather than silently dropped.
 */
export function parseIp(text: string): IpAddress | null {
  const v4 = dottedQuadValue(text);
  if (v4 >= 0) return { version: 4, value: v4 };
  if (isIPv6(text) && !text.includes('%')) return { version: 6, value: ipv6ToBigint(text) };
  return null;
}

/**
 * -1 unless written exactly as `node:net` `isIPv4` accepts it. One pass over the characters instead
 * of isIPv4's regular expression and a second pass to convert: it runs several times on every request.
 */
export function dottedQuadValue(text: string): number {
  if (text.length < 7 || text.length > 15) return -1;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 46 /* . */) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && octet === 0) return -1; // a leading zero
      octet = octet * 10 + (code - 48);
      if (octet > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  return digits === 0 || dots !== 3 ? -1 : value * 256 + octet;
}

export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.version === 6 && (address.value & MAPPED_MASK) === MAPPED_PREFIX) {
    return { version: 4, value: Number(address.value & 0xffffffffn) };
  }
  return address;
}

/** RFC 5952 text for IPv6. */
export function formatIp(address: IpAddress): string {
  return address.version === 4 ? formatIpv4(address.value) : formatIpv6(address.value);
}

/** The one spelling used for display, caching and comparison. */
export function normaliseIp(text: string): string | null {
  const address = parseIp(text);
  return address === null ? null : formatIp(unmapIpv4(address));
}

/**
 * One subscriber usually holds a whole /64, so per-address counting would let one host rotate
 * through 2^64 identities.
 */
export function ipv6Prefix64(text: string): string | null {
  const address = parseIp(text);
  if (address === null) return null;
  const unmapped = unmapIpv4(address);
  if (unmapped.version !== 6) return null;
  return `${formatIpv6(unmapped.value & ~((1n << 64n) - 1n))}/64`;
}

/** A mapped address is reversed as its IPv4 address, because that is where its PTR record lives. */
export function reverseName(text: string): string | null {
  const address = parseIp(text);
  if (address === null) return null;
  const unmapped = unmapIpv4(address);
  if (unmapped.version === 4) {
    return `${formatIpv4(unmapped.value).split('.').reverse().join('.')}.in-addr.arpa`;
  }
  const nibbles = unmapped.value.toString(16).padStart(32, '0').split('').reverse();
  return `${nibbles.join('.')}.ip6.arpa`;
}

// Only called on text isIP() accepted (four decimal octets, dots between): a character loop
// instead of split() and Number(), because it runs several times on every request.
function ipv4ToNumber(text: string): number {
  let value = 0;
  let octet = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 46 /* . */) {
      value = value * 256 + octet;
      octet = 0;
    } else {
      octet = octet * 10 + (code - 48);
    }
  }
  return value * 256 + octet;
}

function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

// Only called on text isIP() accepted, so the structure is already valid.
function ipv6ToBigint(text: string): bigint {
  // Joining groups into 32-bit words as plain numbers first halves the bigint operations, which
  // dominate the cost of a lookup.
  const g = ipv6Groups(text);
  const word = (i: number) => BigInt((g[i] as number) * 0x10000 + (g[i + 1] as number));
  return (word(0) << 96n) | (word(2) << 64n) | (word(4) << 32n) | word(6);
}

function ipv6Groups(text: string): number[] {
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : parseGroups(head);
  if (tail === undefined) return headGroups;
  const tailGroups = tail === '' ? [] : parseGroups(tail);
  const zeros = new Array<number>(8 - headGroups.length - tailGroups.length).fill(0);
  return [...headGroups, ...zeros, ...tailGroups];
}

function parseGroups(part: string): number[] {
  const groups: number[] = [];
  for (const piece of part.split(':')) {
    if (piece.includes('.')) {
      const v4 = ipv4ToNumber(piece);
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else {
      groups.push(Number.parseInt(piece, 16));
    }
  }
  return groups;
}

function formatIpv6(value: bigint): string {
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  return formatIpv6Groups(groups);
}

/** RFC 5952 text of the eight 16-bit groups of an IPv6 address (callers holding words skip the bigint). */
export function formatIpv6Groups(groups: readonly number[]): string {
  // RFC 5952 4.2: compress the longest run of two or more zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
