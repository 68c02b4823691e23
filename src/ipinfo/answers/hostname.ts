import { sharedWhileInFlight } from '../../cache/in-flight.ts';
import type { Resolver } from '../../dns/resolver.ts';

export type HostnameLookup = (ip: string) => Promise<string | undefined>;

/** A lookup that also tells which addresses it is resolving right now. */
export interface SharedHostnameLookup extends HostnameLookup {
  inFlight(ip: string): Promise<string | undefined> | undefined;
}

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
 * request. Lookups of one address running at the same time share one promise.
 */
export function createHostnameLookup(options: HostnameLookupOptions): SharedHostnameLookup {
  const now = options.now ?? Date.now;
  const missingTtlMs = options.missingTtlMs ?? 60_000;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const missingUntil = new Map<string, number>();
  const running = sharedWhileInFlight<string, string | undefined>();
  if (options.timeoutMs === 0) return Object.assign(async () => undefined, { inFlight: () => undefined });
  const resolve = async (ip: string) => {
    const name = await options.resolver.reverse(ip, { timeoutMs: options.timeoutMs });
    if (name !== null && name !== '') return name;
    if (missingUntil.size >= maxRemembered) missingUntil.clear();
    missingUntil.set(ip, now() + missingTtlMs);
    return undefined;
  };
  const lookup = (ip: string): Promise<string | undefined> => {
    const until = missingUntil.get(ip);
    if (until !== undefined) {
      if (now() < until) return Promise.resolve(undefined);
      missingUntil.delete(ip);
    }
    return running(ip, () => resolve(ip));
  };
  return Object.assign(lookup, { inFlight: running.get });
}

/**
 * The same lookup for bulk callers (/api/v1/batch with `fields=hostname`): at most `maxConcurrent`
 * of their lookups run at once, across all batches, so a batch of 1,000 addresses cannot send
 * 1,000 queries to the resolver at the same moment. A lookup of an address already in flight (for
 * /api/v1/json or another batch) joins it without taking a slot. Each lookup keeps the single
 * lookup's time limit, counted from when it starts.
 */
export function queuedHostnameLookup(lookup: SharedHostnameLookup, maxConcurrent: number): HostnameLookup {
  let running = 0;
  const waiting: (() => void)[] = [];
  // A finished lookup hands its slot straight to the next waiting one, so none can slip in between.
  const acquire = (): Promise<void> | undefined => {
    if (running < maxConcurrent) {
      running++;
      return undefined;
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  };
  return async (ip) => {
    const joined = lookup.inFlight(ip);
    if (joined !== undefined) return joined;
    await acquire();
    try {
      return await lookup(ip);
    } finally {
      release();
    }
  };
}
