import { dottedQuadValue, formatIp, parseIp, unmapIpv4 } from '../net/ip-address.ts';

/** The longest text form of an IP address (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`). */
export const MAX_IP_TEXT_LENGTH = 45;

export type IpParameter = { ok: true; ip: string; mappedFrom?: string } | { ok: false; reason: string };

/** What a valid value looks like, for 400 messages and the OpenAPI document. */
export const IP_PARAMETER_HINT = 'an IPv4 address (dotted quad, no leading zeros) or an IPv6 address (without a %zone)';

/**
 * An address a caller asks about (`/json/{ip}`, a batch item, `?ip=`), strictly: the one spelling
 * of a dotted quad (`010.1.1.1` is refused, not read as octal 8.1.1.1 as inet_aton would, nor as
 * 10.1.1.1), any RFC 4291 IPv6 form, no zone index (`fe80::1%eth0` names an interface of the host
 * that wrote it). IPv4-mapped IPv6 (`::ffff:8.8.8.8`) is answered as its IPv4 address, and
 * `mappedFrom` keeps what was asked. `ip` is the address's normal form (RFC 5952 for IPv6), as
 * /api/v1/json shows a caller's address.
 */
export function parseIpParameter(text: string): IpParameter {
  // The usual case, a dotted quad in its one spelling, is its own normal form (a batch parses 1,000).
  if (dottedQuadValue(text) >= 0) return { ok: true, ip: text };
  if (text.length === 0) return { ok: false, reason: 'empty' };
  if (text.length > MAX_IP_TEXT_LENGTH) {
    return { ok: false, reason: `longer than ${MAX_IP_TEXT_LENGTH} characters, the longest form of an address` };
  }
  if (text.includes('%')) return { ok: false, reason: 'an IPv6 zone index (%...) is refused' };
  if (/^[0-9]+(\.[0-9]+){3}$/.test(text) && /(^|\.)0[0-9]/.test(text)) {
    return { ok: false, reason: 'leading zeros are refused (010.1.1.1 is ambiguous: octal or decimal)' };
  }
  const address = parseIp(text);
  if (address === null) return { ok: false, reason: `not ${IP_PARAMETER_HINT}` };
  const unmapped = unmapIpv4(address);
  const ip = formatIp(unmapped);
  return unmapped.version !== address.version ? { ok: true, ip, mappedFrom: text } : { ok: true, ip };
}
