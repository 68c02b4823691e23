import { isIP } from 'node:net';
import { normaliseQueryName } from '../dns/names.ts';
import { normaliseIp } from '../net/ip-address.ts';
import { splitPastedHost } from '../net/pasted-host.ts';

/**
 * What /ssl is asked to check. `host` is a domain name (punycode, lower case, no trailing dot) or an
 * IP address (normalised); `sni` is the name sent in the handshake, null for an address (RFC 6066
 * §3 allows no IP literal there, so none is sent). `port` is null when the input named none.
 */
export type TlsTarget = { host: string; port: number | null; sni: string | null };

export type TlsTargetParse = { ok: true; target: TlsTarget } | { ok: false; reason: string };

/**
 * Reads the `host` parameter of /ssl as people paste it: `example.com`, `example.com:8443`,
 * `https://example.com:8443/path?q`, an IPv4 address, an IPv6 address bare or in brackets
 * (`[2001:db8::1]:443`). Pure, so that a future `port` parameter can be checked against what it
 * returns. Nothing here is handed to a URL parser: it would turn `127.1` or fullwidth digits into
 * an address the user did not write; the name goes through normaliseQueryName's rules instead.
 * The reason is written for a 400 message.
 */
export function parseTlsTarget(input: string): TlsTargetParse {
  const text = input.trim();
  if (text === '') return { ok: false, reason: 'is empty' };
  const split = splitPastedHost(text);
  if (!split.ok) return split;
  if (split.scheme !== null && split.scheme !== 'https') {
    return { ok: false, reason: `is a ${split.scheme}:// URL; give a host name, host:port or an https:// URL` };
  }
  const host = readHost(split.host);
  if (!host.ok) return host;
  return { ok: true, target: { host: host.host, port: split.port, sni: host.ip ? null : host.host } };
}

function readHost(text: string): { ok: true; host: string; ip: boolean } | { ok: false; reason: string } {
  if (isIP(text) !== 0) {
    if (text.includes('%')) {
      return { ok: false, reason: 'has an IPv6 zone index (%...), which names an interface of the server' };
    }
    const address = normaliseIp(text);
    if (address === null) return { ok: false, reason: 'is not a valid IP address' };
    return { ok: true, host: address, ip: true };
  }
  const name = normaliseQueryName(text);
  if (!name.ok) return { ok: false, reason: `must be a domain name or an IP address (${name.reason})` };
  if (name.name === '.')
    return { ok: false, reason: 'must be a domain name or an IP address (the root is not a host)' };
  // "192.0.2.1." (a trailing dot) is still the address.
  if (isIP(name.name) === 4) return { ok: true, host: name.name, ip: true };
  if (name.name.includes('_')) return { ok: false, reason: 'must be a domain name (a host name cannot contain "_")' };
  return { ok: true, host: name.name, ip: false };
}
