import type { Resolver } from '../dns/resolver.ts';

export type HostnameLookup = (ip: string) => Promise<string | undefined>;

export interface HostnameLookupOptions {
  resolver: Pick<Resolver, 'reverse'>;
  /** 0 turns reverse lookups off. */
  timeoutMs: number;
  now?: () => number;
  /** How long an address without a name is not asked about again. */
  missingTtlMs?: number;
  maxRemembered?: number;
}

/**
 * The caller's reverse DNS name, through the project's resolver (which caches answers by their
 * TTL, NXDOMAIN by the zone's SOA, and joins identical lookups in flight). A name is decoration:
 * the lookup is bounded by a short timeout, and an address that had no name in time is not asked
 * about again for a minute, so a client whose reverse zone is broken is not slowed on every
 * request.
 */
export function createHostnameLookup(options: HostnameLookupOptions): HostnameLookup {
  const now = options.now ?? Date.now;
  const missingTtlMs = options.missingTtlMs ?? 60_000;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const missingUntil = new Map<string, number>();
  if (options.timeoutMs === 0) return async () => undefined;
  return async (ip) => {
    const until = missingUntil.get(ip);
    if (until !== undefined) {
      if (now() < until) return undefined;
      missingUntil.delete(ip);
    }
    const name = await options.resolver.reverse(ip, { timeoutMs: options.timeoutMs });
    if (name !== null && name !== '') return name;
    if (missingUntil.size >= maxRemembered) missingUntil.clear();
    missingUntil.set(ip, now() + missingTtlMs);
    return undefined;
  };
}
