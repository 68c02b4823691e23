import { isIP } from 'node:net';
import { normaliseQueryName } from '../../dns/names.ts';
import { cidrOf, formatCidr, parseCidr } from '../../net/cidr.ts';
import { normaliseIp, parseIp } from '../../net/ip-address.ts';
import { hasUrlScheme, splitPastedHost } from '../../net/pasted-host.ts';

/**
 * What /whois is asked about: a registered domain name, an IP address, an IP network (a prefix:
 * `cidr` in its one spelling, `address` its first address) or an autonomous system number.
 */
export type WhoisTarget =
  | { readonly kind: 'domain'; readonly name: string }
  | { readonly kind: 'ip'; readonly address: string }
  | { readonly kind: 'network'; readonly cidr: string; readonly address: string }
  | { readonly kind: 'asn'; readonly asn: number };

/** What a port-43 chain is asked about: a network is asked as its first address. */
export type WhoisChainTarget = Extract<WhoisTarget, { kind: 'domain' | 'ip' }>;

export type WhoisTargetParse = { ok: true; target: WhoisTarget } | { ok: false; reason: string };

/** AS numbers are 32-bit (RFC 6793). */
const MAX_ASN = 4_294_967_295;

/** The text sent to a server and used as the cache key: punycode name, normalised address or prefix, `AS<n>`. */
export function targetText(target: WhoisTarget): string {
  switch (target.kind) {
    case 'domain':
      return target.name;
    case 'ip':
      return target.address;
    case 'network':
      return target.cidr;
    case 'asn':
      return `AS${target.asn}`;
  }
}

/**
 * Reads the `target` parameter as people paste it. A URL gives its host (`https://example.com/x`
 * is example.com; any scheme, the port ignored). An IP literal is normalised (IPv4-mapped IPv6
 * becomes IPv4, IPv6 is compressed as RFC 5952 says); a domain name is converted to punycode and
 * lower case, without the trailing dot, and needs two labels at least (a bare TLD is not something
 * a registry registers). `AS15169` (any case) is an AS number; `8.8.8.0/24` or `2001:db8::/32` a
 * network. The reason is written for a 400 message.
 */
export function parseWhoisTarget(input: string): WhoisTargetParse {
  let text = input.trim();
  if (text === '') return { ok: false, reason: 'is empty' };
  const asn = /^as(\d+)$/i.exec(text);
  if (asn) return parseAsn(asn[1] ?? '');
  if (hasUrlScheme(text)) {
    const split = splitPastedHost(text);
    if (!split.ok) return split;
    text = split.host;
  } else if (text.includes('/')) {
    return parseNetwork(text);
  }
  if (isIP(text) !== 0 || text.includes(':')) {
    const address = normaliseIp(text);
    if (address === null) return { ok: false, reason: `"${text}" is not a valid IP address` };
    return { ok: true, target: { kind: 'ip', address } };
  }
  const name = normaliseQueryName(text);
  if (!name.ok)
    return { ok: false, reason: `must be a domain name, an IP address or network, or an AS number (${name.reason})` };
  // "192.0.2.1." (a trailing dot) is still the address.
  if (isIP(name.name) === 4) return { ok: true, target: { kind: 'ip', address: name.name } };
  const labels = name.name.split('.');
  if (labels.length < 2 || name.name === '.') {
    return {
      ok: false,
      reason: 'must be a domain name with at least two labels (for example example.com), an IP address or an AS number',
    };
  }
  if (name.name.includes('_')) return { ok: false, reason: 'a domain name cannot contain "_"' };
  if (labels.every((label) => /^\d+$/.test(label))) {
    return { ok: false, reason: `"${text}" is neither a valid IP address nor a domain name` };
  }
  return { ok: true, target: { kind: 'domain', name: name.name } };
}

function parseAsn(digits: string): WhoisTargetParse {
  // Digits only (the regex), and no leading zero: "AS015169" is more likely a typo than AS15169.
  const value = Number(digits);
  if (!/^(0|[1-9]\d*)$/.test(digits) || value > MAX_ASN) {
    return { ok: false, reason: `"AS${digits}" is not an AS number (AS0 to AS${MAX_ASN})` };
  }
  return { ok: true, target: { kind: 'asn', asn: value } };
}

function parseNetwork(text: string): WhoisTargetParse {
  const slash = text.indexOf('/');
  const addressText = text.slice(0, slash);
  if (addressText.includes('%')) return { ok: false, reason: 'has an IPv6 zone index (%...)' };
  const parsed = parseCidr(text);
  if (parsed.ok) {
    const cidr = formatCidr(parsed.cidr);
    return { ok: true, target: { kind: 'network', cidr, address: cidr.slice(0, cidr.indexOf('/')) } };
  }
  const address = parseIp(addressText);
  if (address === null)
    return { ok: false, reason: `"${text}" is not a network: "${addressText}" is not an IP address` };
  if (parsed.reason === 'host bits set') {
    const length = Number(text.slice(slash + 1));
    return {
      ok: false,
      reason: `"${text}" is not a network: the address has bits set beyond /${length}; the network is ${formatCidr(cidrOf(address, length))}`,
    };
  }
  return {
    ok: false,
    reason: `"${text}" is not a network: the prefix length must be 0 to ${address.version === 4 ? 32 : 128}`,
  };
}
