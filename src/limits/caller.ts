import { ipv6Prefix64 } from '../net/ip-address.ts';
import type { MaybePromise } from './maybe-async.ts';
import type { Tier } from './tiers.ts';

/** Who a request is counted as: its tier and the subject its counters are keyed by. */
export interface Caller {
  readonly tier: Tier;
  /** `ip:<IPv4>`, `net:<IPv6 /64>` or `account:<id>`. */
  readonly subject: string;
  readonly accountId?: string;
}

/**
 * Decides the caller from the Authorization header. Implementations throw (or reject with) the
 * catalogue's 401 for a key that is malformed, unknown or revoked: a bad key never falls back to
 * the public tier. A caller without a key is answered synchronously, as no storage is involved.
 */
export interface CallerResolver {
  resolve(clientIp: string, authorization: string | undefined): MaybePromise<Caller>;
}

/**
 * Public callers are counted per IPv4 address, and per /64 for IPv6 (one subscriber's usual share).
 * `clientIp` is the normalised client address (client-ip.ts): dotted IPv4 has no colon.
 */
export function publicCaller(clientIp: string): Caller {
  if (!clientIp.includes(':')) return { tier: 'public', subject: `ip:${clientIp}` };
  const prefix = ipv6Prefix64(clientIp);
  return { tier: 'public', subject: prefix === null ? `ip:${clientIp}` : `net:${prefix}` };
}
