/**
 * `example.com:8443`, `[2001:db8::1]:443`, a bare IPv6 address, or a URL. Deliberately not a URL
 * parser: WHATWG URL reads `127.1` or fullwidth digits as an address the user did not write; the
 * host is returned as written, for the caller's own name or address rules. Reasons go into a 400.
 */
export type PastedHost = { ok: true; scheme: string | null; host: string; port: number | null };

export type PastedHostParse = PastedHost | { ok: false; reason: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

export function hasUrlScheme(text: string): boolean {
  return SCHEME.test(text);
}

export function splitPastedHost(input: string): PastedHostParse {
  let text = input;
  let scheme: string | null = null;
  const match = SCHEME.exec(text);
  if (match) {
    scheme = match[1]?.toLowerCase() ?? null;
    // The authority ends where the path, the query or the fragment begins.
    text = text.slice(match[0].length).split(/[/?#]/, 1)[0] ?? '';
    if (text.includes('@')) return { ok: false, reason: 'is a URL with a user name; give the host only' };
    if (text === '') return { ok: false, reason: 'is a URL without a host' };
  }
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return { ok: false, reason: 'has "[" without "]"' };
    const rest = text.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return { ok: false, reason: `has "${rest}" after "]"` };
    return withPort(scheme, text.slice(1, close), rest === '' ? null : rest.slice(1), true);
  }
  const colons = text.split(':').length - 1;
  // Two colons or more: a bare IPv6 address, which cannot carry a port without brackets.
  if (colons === 1) {
    const at = text.indexOf(':');
    return withPort(scheme, text.slice(0, at), text.slice(at + 1), false);
  }
  return { ok: true, scheme, host: text, port: null };
}

function withPort(scheme: string | null, host: string, port: string | null, bracketed: boolean): PastedHostParse {
  if (bracketed && !host.includes(':')) return { ok: false, reason: 'has brackets but no IPv6 address inside' };
  if (host === '') return { ok: false, reason: 'has no host before the port' };
  if (port === null) return { ok: true, scheme, host, port: null };
  // Decimal digits only, as every number the service reads.
  const value = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN;
  if (!(value >= 1 && value <= 65535)) {
    return { ok: false, reason: `has the port "${port}", which is not a whole number from 1 to 65535` };
  }
  return { ok: true, scheme, host, port: value };
}
