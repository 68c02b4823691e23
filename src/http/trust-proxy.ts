import { type Cidr, cidrContains, parseCidr } from '../net/cidr.ts';
import { dottedQuadValue, parseIp, unmapIpv4 } from '../net/ip-address.ts';

/** Named groups an operator may write in TRUST_PROXY instead of CIDRs. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'],
};

export interface TrustProxy {
  /** True when forwarding headers set by this peer may be believed. */
  isTrusted(ip: string): boolean;
  /** Whether any proxy is trusted at all (lets the hot path skip header parsing). */
  readonly enabled: boolean;
  /** The ranges as configured, for logs and docs. */
  readonly ranges: readonly string[];
}

export function parseTrustProxy(raw: string): TrustProxy {
  const written: string[] = [];
  const ranges: Cidr[] = [];
  for (const item of raw.split(',')) {
    const entry = item.trim().toLowerCase();
    if (entry === '') continue;
    for (const text of NAMED_RANGES[entry] ?? [entry]) {
      const parsed = parseCidr(text);
      if (!parsed.ok) {
        throw new Error(`"${item.trim()}" is not a CIDR, an IP address, "loopback" or "private" (${parsed.reason})`);
      }
      written.push(text);
      ranges.push(parsed.cidr);
    }
  }
  // Dotted quads, nearly every address asked about, are compared as numbers without parsing to
  // an address object first.
  const ipv4Ranges = ranges.filter((range): range is Extract<Cidr, { version: 4 }> => range.version === 4);
  return Object.freeze({
    enabled: ranges.length > 0,
    ranges: Object.freeze(written),
    isTrusted(ip: string): boolean {
      const v4 = dottedQuadValue(ip);
      if (v4 >= 0) {
        for (const range of ipv4Ranges) if (v4 >= range.first && v4 <= range.last) return true;
        return false;
      }
      const address = ranges.length === 0 ? null : parseIp(ip);
      if (address === null) return false;
      const unmapped = unmapIpv4(address);
      return ranges.some((range) => cidrContains(range, unmapped));
    },
  });
}
