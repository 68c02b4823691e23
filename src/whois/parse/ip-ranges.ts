import { cidrOf, formatCidr } from '../../net/cidr.ts';
import { formatIp, type IpAddress, parseIp } from '../../net/ip-address.ts';

// Address arithmetic for IP WHOIS blocks, on the project's own address code (src/net/).

/**
 * An address as a registry writes it. LACNIC abbreviates IPv4 prefixes ('200.57.128/19' is
 * 200.57.128.0/19) and some registries pad octets with zeros ('192.012.000.000'), which are decimal
 * here, never octal.
 */
function readAddress(text: string): IpAddress | null {
  if (text.includes(':')) return parseIp(text);
  const octets = text.split('.');
  if (octets.length > 4 || octets.some((octet) => !/^\d{1,3}$/.test(octet))) return null;
  while (octets.length < 4) octets.push('0');
  return parseIp(octets.map((octet) => String(Number(octet))).join('.'));
}

function addressOf(version: 4 | 6, value: bigint): IpAddress {
  return version === 4 ? { version, value: Number(value) } : { version, value };
}

/** 'a.b.c.d/n' (possibly abbreviated) -> its first and last address, or null when not a prefix. */
export function prefixToRange(prefix: string): { first: string; last: string; cidr: string } | null {
  const [addressText, lengthText, extra] = prefix.trim().split('/');
  if (addressText === undefined || lengthText === undefined || extra !== undefined) return null;
  if (!/^\d{1,3}$/.test(lengthText)) return null;
  const address = readAddress(addressText);
  const length = Number(lengthText);
  if (!address || length > (address.version === 4 ? 32 : 128)) return null;
  // Host bits are cleared rather than refused: a registry's 'inetnum: 10.1.2.3/8' names the /8.
  const cidr = cidrOf(address, length);
  return {
    first: formatIp(addressOf(cidr.version, BigInt(cidr.first))),
    last: formatIp(addressOf(cidr.version, BigInt(cidr.last))),
    cidr: formatCidr(cidr),
  };
}

/** The fewest prefixes that cover 'first - last' exactly, as RPSL inetnum ranges need not be one prefix. */
export function rangeToPrefixes(firstText: string, lastText: string): string[] {
  const first = readAddress(firstText);
  const last = readAddress(lastText);
  if (!first || !last || first.version !== last.version) return [];
  const version = first.version;
  const bits = version === 4 ? 32 : 128;
  const end = BigInt(last.value);
  let start = BigInt(first.value);
  if (start > end) return [];
  const prefixes: string[] = [];
  // A range of garbage could need up to 2 * bits prefixes; 64 is far more than any real block.
  while (start <= end && prefixes.length < 64) {
    let size = 0; // host bits of the largest aligned block that starts here and fits
    while (size < bits) {
      const block = 1n << BigInt(size + 1);
      if (start % block !== 0n || start + block - 1n > end) break;
      size++;
    }
    prefixes.push(`${formatIp(addressOf(version, start))}/${bits - size}`);
    start += 1n << BigInt(size);
  }
  return prefixes;
}
