import { isIP } from 'node:net';
import { normaliseQueryName } from '../dns/names.ts';
import { normaliseIp } from '../net/ip-address.ts';

/** What /whois is asked about: a registered domain name or an IP address. */
export type WhoisTarget =
  | { readonly kind: 'domain'; readonly name: string }
  | { readonly kind: 'ip'; readonly address: string };

export type WhoisTargetParse = { ok: true; target: WhoisTarget } | { ok: false; reason: string };

/** The text sent to a server and used as the cache key: punycode name or normalised address. */
export function targetText(target: WhoisTarget): string {
  return target.kind === 'domain' ? target.name : target.address;
}

/**
 * Reads the `target` parameter. An IP literal is normalised (IPv4-mapped IPv6 becomes IPv4, IPv6 is
 * compressed as RFC 5952 says); a domain name is converted to punycode and lower case, without the
 * trailing dot. A name needs two labels at least: a bare TLD is not something a registry registers.
 * The reason is written for a 400 message.
 */
export function parseWhoisTarget(input: string): WhoisTargetParse {
  const text = input.trim();
  if (text === '') return { ok: false, reason: 'is empty' };
  if (isIP(text) !== 0 || text.includes(':')) {
    const address = normaliseIp(text);
    if (address === null) return { ok: false, reason: `"${text}" is not a valid IP address` };
    return { ok: true, target: { kind: 'ip', address } };
  }
  const name = normaliseQueryName(text);
  if (!name.ok) return { ok: false, reason: `must be a domain name or an IP address (${name.reason})` };
  const labels = name.name.split('.');
  if (labels.length < 2 || name.name === '.') {
    return {
      ok: false,
      reason: 'must be a domain name with at least two labels (for example example.com) or an IP address',
    };
  }
  if (name.name.includes('_')) return { ok: false, reason: 'a domain name cannot contain "_"' };
  if (labels.every((label) => /^\d+$/.test(label))) {
    return { ok: false, reason: `"${text}" is neither a valid IP address nor a domain name` };
  }
  return { ok: true, target: { kind: 'domain', name: name.name } };
}
