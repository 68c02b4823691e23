import { dottedQuadValue } from '../net/ip-address.ts';

/** `YYYY-MM-DDThh:mm:ssZ`; the text changes once a second, so the last one is kept. */
let lastSecond = Number.NaN;
let lastTimestamp = '';
function utcTimestamp(nowMs: number): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastTimestamp;
}

/** What /api/v1/ipv6 says about a client address at a moment. */
export function describeIpFamily(ip: string, nowMs: number) {
  // `ip` is a normalised client address (http/client-ip.ts): IPv4 is a plain dotted quad.
  const v4 = dottedQuadValue(ip) >= 0;
  return {
    ip,
    is_ipv4: v4,
    is_ipv6: !v4,
    protocol: v4 ? ('IPv4' as const) : ('IPv6' as const),
    timestamp: utcTimestamp(nowMs),
  };
}
