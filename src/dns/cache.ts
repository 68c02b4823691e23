import type { TtlCache } from '../cache/ttl-cache.ts';
import type { QueryFlags, ReplyFlags } from './message.ts';
import type { DnsRecord } from './records.ts';

/** What the resolver caches for one question: everything but the transport it came over. */
export type CachedAnswer = {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: DnsRecord[];
  authority: DnsRecord[];
  server: string;
  /**
   * The reply's header bits; along a CNAME chain asked in several steps, AD only when every step
   * had it. Optional: answers cached before the bits were kept have none.
   */
  flags?: ReplyFlags;
};

/**
 * The cache behind the resolver. Async so that a shared (Redis) implementation fits; it must
 * return records with their TTLs counted down by the time they spent in the cache, and decide
 * how long to keep an answer with `cacheLifetimeSeconds`.
 */
export interface DnsCache {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer): Promise<void>;
}

/**
 * One entry per question and per query bit that changes the answer: with DO the answer carries
 * RRSIGs, with CD a validating resolver gives data it would refuse, with AD it reports validation.
 * A plain question keeps the key it always had.
 */
export function cacheKey(name: string, type: string, flags: QueryFlags = {}): string {
  const bits = [flags.dnssecOk ? 'do' : '', flags.checkingDisabled ? 'cd' : '', flags.authenticatedData ? 'ad' : '']
    .filter(Boolean)
    .join(',');
  return `${name.toLowerCase()}|${type}${bits === '' ? '' : `|${bits}`}`;
}

export type CacheLimits = {
  /** Upper bound on any entry, whatever its TTL. */
  maxTtlSeconds: number;
  /** Upper bound on negative answers (RFC 2308 §5 suggests 1-3 hours; a lookup tool wants less). */
  maxNegativeTtlSeconds: number;
};

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxTtlSeconds: 86_400, maxNegativeTtlSeconds: 300 };

/**
 * How long an answer may be kept: the smallest TTL among its records; for a negative answer
 * (NXDOMAIN, or no records) the SOA's TTL or its MINIMUM field, whichever is smaller (RFC 2308 §5).
 * A negative answer without an SOA is not cached (RFC 2308 §5: SHOULD NOT). 0 means do not cache.
 */
export function cacheLifetimeSeconds(answer: CachedAnswer, limits: CacheLimits = DEFAULT_CACHE_LIMITS): number {
  const ttls = answer.answers.map((record) => record.ttl);
  const negative = answer.rcode === 'NXDOMAIN' || answer.answers.length === 0;
  if (!negative) return Math.max(0, Math.min(limits.maxTtlSeconds, ...ttls));
  const soa = answer.authority.find((record) => record.type === 'SOA');
  if (soa === undefined || soa.type !== 'SOA') return 0;
  return Math.max(0, Math.min(limits.maxNegativeTtlSeconds, soa.ttl, soa.data.minimum, ...ttls));
}

/** The answer as seen `elapsedSeconds` after it was stored: every TTL counted down, never below 0. */
export function ageAnswer(answer: CachedAnswer, elapsedSeconds: number): CachedAnswer {
  const age = (record: DnsRecord): DnsRecord => ({ ...record, ttl: Math.max(0, record.ttl - elapsedSeconds) });
  return { ...answer, answers: answer.answers.map(age), authority: answer.authority.map(age) };
}

export type MemoryDnsCacheOptions = {
  /** Entries kept at most; the least recently used goes first. */
  maxEntries?: number;
  limits?: CacheLimits;
  /** Milliseconds; injected so tests can move time. */
  now?: () => number;
};

type Entry = { answer: CachedAnswer; storedAt: number; expiresAt: number };

export function createMemoryDnsCache(options: MemoryDnsCacheOptions = {}): DnsCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const limits = options.limits ?? DEFAULT_CACHE_LIMITS;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, so re-inserting on use keeps the oldest use first.
  const entries = new Map<string, Entry>();

  return {
    async get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      const time = now();
      entries.delete(key);
      if (time >= entry.expiresAt) return undefined;
      entries.set(key, entry);
      return ageAnswer(entry.answer, Math.floor((time - entry.storedAt) / 1000));
    },
    async set(key, answer) {
      const lifetime = cacheLifetimeSeconds(answer, limits);
      entries.delete(key);
      if (lifetime <= 0) return;
      const time = now();
      entries.set(key, { answer, storedAt: time, expiresAt: time + lifetime * 1000 });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
  };
}

export const noDnsCache: DnsCache = {
  get: async () => undefined,
  set: async () => {},
};

/** An answer as a shared store keeps it: with the time it was stored, so TTLs can be counted down. */
export type StoredAnswer = { answer: CachedAnswer; storedAt: number };

/**
 * A DnsCache over any TtlCache (Redis, for several instances): entries live for the answer's
 * lifetime and come back aged by the time they spent in the store.
 */
export function createDnsCacheOver(
  store: TtlCache<StoredAnswer>,
  options: { limits?: CacheLimits; now?: () => number } = {},
): DnsCache {
  const limits = options.limits ?? DEFAULT_CACHE_LIMITS;
  const now = options.now ?? Date.now;
  return {
    async get(key) {
      const stored = await store.get(key);
      if (stored === undefined) return undefined;
      return ageAnswer(stored.answer, Math.max(0, Math.floor((now() - stored.storedAt) / 1000)));
    },
    async set(key, answer) {
      const lifetime = cacheLifetimeSeconds(answer, limits);
      if (lifetime > 0) await store.set(key, { answer, storedAt: now() }, lifetime);
    },
  };
}
