import { isIP } from 'node:net';
import { endsInNumber } from '../dns/names.ts';

/** A WHOIS server to connect to: a host name or IP literal, and its TCP port. */
export interface WhoisServerAddress {
  /** Lower case; an IPv6 literal without brackets. */
  readonly host: string;
  readonly port: number;
}

export const WHOIS_PORT = 43;

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type ServerAddressParse = { ok: true; server: WhoisServerAddress } | { ok: false; reason: string };

/**
 * Reads `host`, `host:port`, `a.b.c.d:port`, `[v6]:port` or a bare IPv6 literal, as written in
 * WHOIS_SERVER and in referrals ('whois.ripe.net:43'). A missing port is `defaultPort`.
 */
export function parseWhoisServer(text: string, defaultPort = WHOIS_PORT): ServerAddressParse {
  const value = text.trim().toLowerCase();
  let host = value;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1] ?? '';
    portText = bracketed[2];
    if (isIP(host) !== 6) return { ok: false, reason: `"${host}" is not an IPv6 address` };
  } else if (isIP(value) !== 6) {
    const colon = value.lastIndexOf(':');
    if (colon !== -1) {
      host = value.slice(0, colon);
      portText = value.slice(colon + 1);
    }
  }
  if (host === '' || (isIP(host) === 0 && !HOST_NAME.test(host))) {
    return { ok: false, reason: `"${text}" is not a host name or an IP address` };
  }
  // '127.1' or '999.1.1.1' passed the pattern above, and then every lookup failed on it (the
  // resolver refuses such names): refused here, at startup for WHOIS_SERVER.
  if (isIP(host) === 0 && endsInNumber(host)) {
    return { ok: false, reason: `"${host}" ends in a number but is not an IPv4 address as a.b.c.d` };
  }
  let port = defaultPort;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) {
      return { ok: false, reason: `port "${portText}" is not a number from 1 to 65535` };
    }
  }
  return { ok: true, server: { host, port } };
}

/** `host:port`, with brackets around an IPv6 literal: the spelling used in messages and the chain. */
export function formatWhoisServer(server: WhoisServerAddress): string {
  return isIP(server.host) === 6 ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}
