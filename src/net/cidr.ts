import { formatIp, type IpAddress, parseIp } from './ip-address.ts';

/** A network prefix as its first and last address, inclusive, so containment is two comparisons. */
export type Cidr =
  | { readonly version: 4; readonly first: number; readonly last: number; readonly prefixLength: number }
  | { readonly version: 6; readonly first: bigint; readonly last: bigint; readonly prefixLength: number };

export type CidrParse = { ok: true; cidr: Cidr } | { ok: false; reason: string };

/**
 * Parses `address/length`; a bare address is its own /32 or /128 (feeds mix the two forms).
 * Strict about host bits: `10.0.0.1/8` is refused, because a feed line like that is more likely a
 * typo for a narrower network than a deliberate /8, and silently widening it would over-block.
 */
export function parseCidr(text: string): CidrParse {
  const slash = text.indexOf('/');
  const address = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (address === null) return { ok: false, reason: 'not an IP address' };
  const bits = address.version === 4 ? 32 : 128;
  let prefixLength = bits;
  if (slash !== -1) {
    const lengthText = text.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(lengthText)) return { ok: false, reason: 'bad prefix length' };
    prefixLength = Number(lengthText);
    if (prefixLength > bits) return { ok: false, reason: `prefix length over ${bits}` };
  }
  const cidr = cidrOf(address, prefixLength);
  if (cidr.first !== address.value) return { ok: false, reason: 'host bits set' };
  return { ok: true, cidr };
}

export function cidrOf(address: IpAddress, prefixLength: number): Cidr {
  if (address.version === 4) {
    const size = 2 ** (32 - prefixLength);
    const first = Math.floor(address.value / size) * size;
    return { version: 4, first, last: first + size - 1, prefixLength };
  }
  const host = (1n << BigInt(128 - prefixLength)) - 1n;
  const first = address.value & ~host;
  return { version: 6, first, last: first | host, prefixLength };
}

export function formatCidr(cidr: Cidr): string {
  const first: IpAddress = cidr.version === 4 ? { version: 4, value: cidr.first } : { version: 6, value: cidr.first };
  return `${formatIp(first)}/${cidr.prefixLength}`;
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.version === 4) return address.version === 4 && address.value >= cidr.first && address.value <= cidr.last;
  return address.version === 6 && address.value >= cidr.first && address.value <= cidr.last;
}
