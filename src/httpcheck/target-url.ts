import { isIP } from 'node:net';
import { normaliseQueryName } from '../dns/names.ts';
import { hasUrlScheme, splitPastedHost } from '../net/pasted-host.ts';
import { type PortRanges, portAllowed } from './config.ts';

/**
 * One URL the HTTP check is to request: the URL itself (fragment dropped, never sent), the host
 * to resolve (an IP address without brackets, or a name as the resolver takes it), the port,
 * and whether it is TLS.
 */
export interface CheckTarget {
  readonly url: URL;
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
}

export type CheckTargetParse = { ok: true; target: CheckTarget } | { ok: false; reason: string };

function formatPorts(ranges: PortRanges): string {
  return ranges.map(([first, last]) => (first === last ? `${first}` : `${first}-${last}`)).join(', ');
}

/** The host of a parsed URL as the resolver takes it, or why it cannot be connected to. */
function hostOf(url: URL): { ok: true; host: string } | { ok: false; reason: string } {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return { ok: true, host };
  const name = normaliseQueryName(host);
  if (!name.ok || name.name === '.')
    return { ok: false, reason: `its host is not a domain name (${name.ok ? 'the root' : name.reason})` };
  return { ok: true, host: name.name };
}

/** Scheme, host and port rules shared by the URL asked and every redirect. */
function checkParsed(url: URL, ports: PortRanges): CheckTargetParse {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `is a ${url.protocol.slice(0, -1)}: URL; only http:// and https:// URLs are checked` };
  }
  const host = hostOf(url);
  if (!host.ok) return host;
  const secure = url.protocol === 'https:';
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  if (!portAllowed(port, ports)) {
    return { ok: false, reason: `port ${port} is not one the HTTP check connects to (${formatPorts(ports)})` };
  }
  url.hash = '';
  return { ok: true, target: { url, host: host.host, port, secure } };
}

/**
 * A host, with or without a port and a path, written without its scheme: `example.com`,
 * `host:8081/x`, `[::1]:8080`. A URL parser reads `host:8081` as the scheme "host:", and a
 * message about that scheme would puzzle the person who typed it.
 */
function lacksScheme(text: string): boolean {
  return (
    /^(?:\[[0-9a-f:.]+\]|[^\s/:?#[\]@]+)(?::\d{1,5})?(?:[/?#]|$)/i.test(text) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)
  );
}

/**
 * Reads the `url` parameter. The host is judged as written first, by the rules of every other host
 * parameter (`127.1` and fullwidth digits are refused, never read as an address the caller did
 * not write), then the whole is parsed as a browser would. The reason is written for a 400.
 */
export function parseCheckUrl(input: string, ports: PortRanges): CheckTargetParse {
  const text = input.trim();
  if (text === '') return { ok: false, reason: 'is empty' };
  if (lacksScheme(text)) {
    const shown = text.length > 200 ? `${text.slice(0, 200)}...` : text;
    return { ok: false, reason: `has no scheme: write http://${shown} or https://${shown}` };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || !hasUrlScheme(text)) {
    return {
      ok: false,
      reason:
        scheme === undefined || scheme === 'http' || scheme === 'https'
          ? 'must be an absolute http:// or https:// URL'
          : `is a ${scheme}: URL; only http:// and https:// URLs are checked`,
    };
  }
  if (scheme !== 'http' && scheme !== 'https') {
    return { ok: false, reason: `is a ${scheme}: URL; only http:// and https:// URLs are checked` };
  }
  const written = splitPastedHost(text);
  if (!written.ok) return written;
  if (isIP(written.host) === 0) {
    const name = normaliseQueryName(written.host);
    if (!name.ok) return { ok: false, reason: `must name a domain or an IP address (${name.reason})` };
  } else if (written.host.includes('%')) {
    return { ok: false, reason: 'has an IPv6 zone index (%...), which names an interface of the server' };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  return checkParsed(url, ports);
}

/**
 * Where a redirect leads: its Location resolved against the URL that sent it, as a browser does,
 * under the same scheme and port rules. Credentials in it are dropped (never sent).
 */
export function redirectTarget(location: string, base: URL, ports: PortRanges): CheckTargetParse {
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    return { ok: false, reason: `its Location ${JSON.stringify(location.slice(0, 200))} is not a valid URL` };
  }
  url.username = '';
  url.password = '';
  return checkParsed(url, ports);
}
