import { isIP } from 'node:net';

/** A DNS server the stub resolver sends its queries to. */
export type DnsServer = { readonly host: string; readonly port: number };

export const DEFAULT_DNS_PORT = 53;

export type ServersResult = { ok: true; servers: DnsServer[] } | { ok: false; reason: string };

/** `127.0.0.1:53` or `[::1]:53`: the form used in errors, logs and results. */
export function formatServer(server: DnsServer): string {
  return isIP(server.host) === 6 ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}

/**
 * Parses `DNS_SERVERS`: comma-separated `ip[:port]`, IPv6 as `[addr]:port` or bare `addr`.
 * Only IP literals are accepted: the resolver cannot resolve the name of its own server.
 */
export function parseDnsServersList(value: string): ServersResult {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { ok: false, reason: 'DNS_SERVERS is empty' };
  const servers: DnsServer[] = [];
  for (const entry of entries) {
    const server = parseServerEntry(entry);
    if (typeof server === 'string') return { ok: false, reason: `DNS_SERVERS entry "${entry}": ${server}` };
    servers.push(server);
  }
  return { ok: true, servers };
}

function parseServerEntry(entry: string): DnsServer | string {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const host = bracketed[1] ?? '';
    if (isIP(host) !== 6) return 'not an IPv6 address in brackets';
    return withPort(host, bracketed[2]);
  }
  // A bare IPv6 address has several colons and cannot carry a port without brackets.
  if (isIP(entry) === 6) return { host: entry, port: DEFAULT_DNS_PORT };
  const [host = '', port, ...rest] = entry.split(':');
  if (rest.length > 0) return 'write IPv6 with a port as [addr]:port';
  if (isIP(host) !== 4) return 'not an IP address (host names are not accepted)';
  return withPort(host, port);
}

function withPort(host: string, port: string | undefined): DnsServer | string {
  if (port === undefined) return { host, port: DEFAULT_DNS_PORT };
  if (!/^\d{1,5}$/.test(port)) return `bad port "${port}"`;
  const number = Number(port);
  if (number < 1 || number > 65535) return `port ${number} out of range 1-65535`;
  return { host, port: number };
}

/**
 * The `nameserver` lines of /etc/resolv.conf, in order. Comments (`#` or `;`) are ignored, and so
 * are scoped link-local addresses (`fe80::1%eth0`), which a socket cannot reach without the zone.
 */
export function parseResolvConf(text: string): ServersResult {
  const servers: DnsServer[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/[#;].*$/, '').trim();
    const [keyword, address] = line.split(/\s+/);
    if (keyword !== 'nameserver' || address === undefined) continue;
    if (address.includes('%') || isIP(address) === 0) continue;
    servers.push({ host: address, port: DEFAULT_DNS_PORT });
  }
  if (servers.length === 0) return { ok: false, reason: 'resolv.conf has no usable nameserver line' };
  return { ok: true, servers };
}

/**
 * Chooses the servers: `DNS_SERVERS` when set, else the resolv.conf text (read by the caller, so
 * this stays pure).
 */
export function chooseDnsServers(dnsServersEnv: string | undefined, readResolvConf: () => string): ServersResult {
  if (dnsServersEnv !== undefined && dnsServersEnv.trim() !== '') return parseDnsServersList(dnsServersEnv);
  let text: string;
  try {
    text = readResolvConf();
  } catch (error) {
    return { ok: false, reason: `DNS_SERVERS is unset and resolv.conf cannot be read: ${(error as Error).message}` };
  }
  const parsed = parseResolvConf(text);
  return parsed.ok ? parsed : { ok: false, reason: `DNS_SERVERS is unset and ${parsed.reason}` };
}
