import { isIP } from 'node:net';
import { normaliseQueryName } from '../dns/names.ts';
import { normaliseIp } from '../net/ip-address.ts';

/**
 * What /ssl is asked to check. `host` is a domain name (punycode, lower case, no trailing dot) or an
 * IP address (normalised); `sni` is the name sent in the handshake, null for an address (RFC 6066
 * §3 allows no IP literal there, so none is sent). `port` is null when the input named none.
 */
export type TlsTarget = { host: string; port: number | null; sni: string | null };

export type TlsTargetParse = { ok: true; target: TlsTarget } | { ok: false; reason: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * Reads the `host` parameter of /ssl as people paste it: `example.com`, `example.com:8443`,
 * `https://example.com:8443/path?q`, an IPv4 address, an IPv6 address bare or in brackets
 * (`[2001:db8::1]:443`). Pure, so that a future `port` parameter can be checked against what it
 * returns. Nothing here is handed to a URL parser: it would turn `127.1` or fullwidth digits into
 * an address the user did not write; the name goes through normaliseQueryName's rules instead.
 * The reason is written for a 400 message.
 */
export function parseTlsTarget(input: string): TlsTargetParse {
  let text = input.trim();
  if (text === '') return { ok: false, reason: 'is empty' };
  const scheme = SCHEME.exec(text);
  if (scheme) {
    if (scheme[1]?.toLowerCase() !== 'https') {
      return { ok: false, reason: `is a ${scheme[1]}:// URL; give a host name, host:port or an https:// URL` };
    }
    // The authority ends where the path, the query or the fragment begins.
    text = text.slice(scheme[0].length).split(/[/?#]/, 1)[0] ?? '';
    if (text.includes('@')) return { ok: false, reason: 'is a URL with a user name; give the host only' };
    if (text === '') return { ok: false, reason: 'is a URL without a host' };
  }
  const split = splitHostPort(text);
  if (!split.ok) return split;
  const host = readHost(split.host);
  if (!host.ok) return host;
  return { ok: true, target: { host: host.host, port: split.port, sni: host.ip ? null : host.host } };
}

function splitHostPort(text: string): { ok: true; host: string; port: number | null } | { ok: false; reason: string } {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return { ok: false, reason: 'has "[" without "]"' };
    const rest = text.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return { ok: false, reason: `has "${rest}" after "]"` };
    const inside = text.slice(1, close);
    if (isIP(inside) !== 6) return { ok: false, reason: 'has brackets but no IPv6 address inside' };
    return withPort(inside, rest === '' ? null : rest.slice(1));
  }
  const colons = text.split(':').length - 1;
  // Two colons or more: a bare IPv6 address, which cannot carry a port without brackets.
  if (colons >= 2) return { ok: true, host: text, port: null };
  if (colons === 1) {
    const at = text.indexOf(':');
    return withPort(text.slice(0, at), text.slice(at + 1));
  }
  return { ok: true, host: text, port: null };
}

function withPort(
  host: string,
  port: string | null,
): { ok: true; host: string; port: number | null } | { ok: false; reason: string } {
  if (port === null) return { ok: true, host, port: null };
  // Decimal digits only, as every number the service reads.
  const value = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN;
  if (!(value >= 1 && value <= 65535)) {
    return { ok: false, reason: `has the port "${port}", which is not a whole number from 1 to 65535` };
  }
  return { ok: true, host, port: value };
}

function readHost(text: string): { ok: true; host: string; ip: boolean } | { ok: false; reason: string } {
  if (text === '') return { ok: false, reason: 'has no host before the port' };
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
