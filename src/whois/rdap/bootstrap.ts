import { type Cidr, cidrContains, parseCidr } from '../../net/cidr.ts';
import { parseIp, unmapIpv4 } from '../../net/ip-address.ts';

/**
 * IANA's RDAP bootstrap registries (RFC 9224): which RDAP servers answer for which TLDs (dns.json),
 * address blocks (ipv4.json, ipv6.json) and AS number ranges (asn.json, entries `64512-65534` or a
 * single number). Each file is `{ version, publication, description?, services: [[entries], [base URLs]][] }`.
 */
export interface BootstrapFile {
  version?: string;
  publication?: string | null;
  description?: string;
  services: [string[], string[]][];
}

/** The project's snapshot: IANA's files as published, plus where and when they were obtained. */
export interface BootstrapSnapshot {
  /** Where the data came from, in words (IANA's address, or the package it was taken from). */
  source: string;
  /** When the data was obtained (ISO 8601): it is refreshed at run time once older than the refresh interval. */
  retrieved: string;
  licence?: string;
  note?: string;
  dns: BootstrapFile;
  /** Absent when the source carried no IP registry; the first run-time refresh fills them. */
  ipv4: BootstrapFile | null;
  ipv6: BootstrapFile | null;
  /** IANA's asn.json; absent from snapshots taken before AS numbers were looked up, filled by a refresh. */
  asn?: BootstrapFile | null;
}

/** Throws with a message naming what is wrong; returns the file unchanged when it is well formed. */
export function checkBootstrapFile(value: unknown, name: string): BootstrapFile {
  const file = value as BootstrapFile | null;
  if (typeof file !== 'object' || file === null || !Array.isArray(file.services)) {
    throw new Error(`${name}: not an RDAP bootstrap file (no services array)`);
  }
  for (const [index, service] of file.services.entries()) {
    const [entries, urls] = Array.isArray(service) ? service : [];
    const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string');
    if (!strings(entries) || !strings(urls)) throw new Error(`${name}: service ${index} is not [[entries], [urls]]`);
  }
  return file;
}

/** A base URL ends with '/' so that 'domain/<name>' can be appended (RFC 9224 §3 requires it; a few entries lack it). */
function asBaseUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
    return url.endsWith('/') ? url : `${url}/`;
  } catch {
    return null;
  }
}

/** HTTPS first: RFC 9224 §3 has clients prefer it when a service lists both. */
function orderUrls(urls: string[]): string[] {
  const bases = urls.map(asBaseUrl).filter((url): url is string => url !== null);
  return [...bases.filter((url) => url.startsWith('https:')), ...bases.filter((url) => !url.startsWith('https:'))];
}

export interface RdapServerIndex {
  /** Base URLs for a domain name: the service of its longest matching label suffix ('uk' for 'a.co.uk'). */
  forDomain(name: string): string[];
  /** Base URLs for an address: the service of its longest matching prefix. */
  forIp(address: string): string[];
  /** Base URLs for an AS number: the service whose range holds it. */
  forAsn(asn: number): string[];
  readonly counts: { dns: number; ipv4: number; ipv6: number; asn: number };
}

/** An asn.json entry, `64512-65534` or `15169`, as an inclusive range; null when malformed. */
export function parseAsnRange(entry: string): { first: number; last: number } | null {
  const match = /^(\d{1,10})(?:-(\d{1,10}))?$/.exec(entry.trim());
  if (!match) return null;
  const first = Number(match[1]);
  const last = Number(match[2] ?? match[1]);
  return first <= last && last <= 4_294_967_295 ? { first, last } : null;
}

export function indexBootstrap(snapshot: Pick<BootstrapSnapshot, 'dns' | 'ipv4' | 'ipv6' | 'asn'>): RdapServerIndex {
  const domains = new Map<string, string[]>();
  for (const [entries, urls] of snapshot.dns.services) {
    for (const entry of entries) domains.set(entry.toLowerCase().replace(/\.$/, ''), orderUrls(urls));
  }
  const blocks: { cidr: Cidr; urls: string[] }[] = [];
  for (const file of [snapshot.ipv4, snapshot.ipv6]) {
    for (const [entries, urls] of file?.services ?? []) {
      for (const entry of entries) {
        const parsed = parseCidr(entry);
        if (parsed.ok) blocks.push({ cidr: parsed.cidr, urls: orderUrls(urls) });
      }
    }
  }
  blocks.sort((a, b) => b.cidr.prefixLength - a.cidr.prefixLength);
  const asnRanges: { first: number; last: number; urls: string[] }[] = [];
  for (const [entries, urls] of snapshot.asn?.services ?? []) {
    for (const entry of entries) {
      const range = parseAsnRange(entry);
      if (range) asnRanges.push({ ...range, urls: orderUrls(urls) });
    }
  }

  return {
    forDomain(name) {
      const labels = name.toLowerCase().replace(/\.$/, '').split('.');
      for (let start = 0; start < labels.length; start++) {
        const urls = domains.get(labels.slice(start).join('.'));
        if (urls) return urls;
      }
      return [];
    },
    forIp(text) {
      const address = parseIp(text);
      if (address === null) return [];
      const unmapped = unmapIpv4(address);
      return blocks.find((block) => cidrContains(block.cidr, unmapped))?.urls ?? [];
    },
    forAsn(asn) {
      return asnRanges.find((range) => asn >= range.first && asn <= range.last)?.urls ?? [];
    },
    counts: {
      dns: domains.size,
      ipv4: blocks.filter((block) => block.cidr.version === 4).length,
      ipv6: blocks.filter((block) => block.cidr.version === 6).length,
      asn: asnRanges.length,
    },
  };
}
