import { createGenerationalMap } from '../cache/generational-map.ts';
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

const publicCallers = createGenerationalMap<string, Caller>(20_000);

/**
 * Public callers are counted per IPv4 address, and per /64 for IPv6 (one subscriber's usual share).
 * `clientIp` is the normalised client address (client-ip.ts): dotted IPv4 has no colon.
 *
 * The same caller object, and so the same subject string, for the same address while it is in use:
 * the in-process counters are then found by identity rather than by hashing and comparing a new
 * `ip:...` string on every request (see canonicalAddress in http/request-context.ts).
 */
export function publicCaller(clientIp: string): Caller {
  const known = publicCallers.get(clientIp);
  if (known !== undefined) return known;
  const caller = publicCallerOf(clientIp);
  publicCallers.set(clientIp, caller);
  return caller;
}

function publicCallerOf(clientIp: string): Caller {
  if (!clientIp.includes(':')) return { tier: 'public', subject: `ip:${clientIp}` };
  const prefix = ipv6Prefix64(clientIp);
  return { tier: 'public', subject: prefix === null ? `ip:${clientIp}` : `net:${prefix}` };
}
