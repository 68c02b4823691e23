import type { IncomingHttpHeaders } from 'node:http';
import type { TrustProxy } from '../http/trust-proxy.ts';

/**
 * Over HTTPS the cookie is `__Host-netinfo_session`: browsers accept that name only with Secure,
 * Path=/ and no Domain, so a script on a sibling subdomain or a man in the middle on plain HTTP
 * cannot plant a session cookie of its choosing (fixation by cookie tossing). Over plain HTTP
 * (local use) it is `netinfo_session`; each kind of request reads only its own name.
 */
export const SESSION_COOKIE = 'netinfo_session';
export const SECURE_SESSION_COOKIE = '__Host-netinfo_session';

export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/**
 * The values of one cookie in a Cookie header, in the order sent. A browser sends a name twice when
 * it holds two such cookies (another Domain or Path, say a stale one set for a parent domain); the
 * one that belongs to this site may be either.
 */
export function readCookies(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    values.push(part.slice(separator + 1).trim());
  }
  return values;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site subrequests or POSTs, only on
 * top-level navigations, which change nothing here), Path=/ and, over HTTPS, Secure.
 */
export function sessionCookie(value: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  const attributes = [
    `${sessionCookieName(options.secure)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${options.maxAgeSeconds}`,
  ];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}

export function expiredSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}

export interface RequestFacts {
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined; readonly encrypted?: boolean };
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim().toLowerCase();
}

/**
 * Whether the browser reached us over HTTPS: our own TLS, or a trusted proxy (TRUST_PROXY) saying so
 * in `X-Forwarded-Proto` or `Forwarded: proto=` (the client-facing, left-most, entry).
 */
export function isSecureRequest(request: RequestFacts, trust: TrustProxy): boolean {
  if (request.socket.encrypted) return true;
  const peer = request.socket.remoteAddress ?? '';
  if (!trust.enabled || !trust.isTrusted(peer)) return false;
  const forwardedProto = firstValue(request.headers['x-forwarded-proto']);
  if (forwardedProto !== undefined) return forwardedProto === 'https';
  const forwarded = firstValue(request.headers.forwarded);
  const proto = forwarded
    ?.split(';')
    .map((pair) => pair.trim().split('='))
    .find(([name]) => name === 'proto')?.[1];
  return proto?.replaceAll('"', '') === 'https';
}

/** The host the browser addressed: the Host header, or a trusted proxy's X-Forwarded-Host. */
export function requestHost(request: RequestFacts, trust: TrustProxy): string | undefined {
  const peer = request.socket.remoteAddress ?? '';
  if (trust.enabled && trust.isTrusted(peer)) {
    const forwardedHost = firstValue(request.headers['x-forwarded-host']);
    if (forwardedHost) return forwardedHost;
  }
  return request.headers.host?.toLowerCase();
}
