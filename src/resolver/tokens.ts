import type { TtlCache } from '../cache/ttl-cache.ts';

/** 20 to 32 characters of lowercase base32 (RFC 4648): the page makes 24, 120 random bits. */
export const TOKEN_PATTERN = '^[a-z2-7]{20,32}$';
const TOKEN = new RegExp(TOKEN_PATTERN);

export function isToken(label: string): boolean {
  return TOKEN.test(label);
}

/** The names of one test: the plain one, one signed correctly and one whose signatures are broken. */
export type TokenName = 'plain' | 'ok' | 'bad';

/** The token and which of its names a label of the zone is, or null for any other label. */
export function parseTokenLabel(label: string): { token: string; name: TokenName } | null {
  const lower = label.toLowerCase();
  const [name, token] = lower.startsWith('ok-')
    ? (['ok', lower.slice(3)] as const)
    : lower.startsWith('bad-')
      ? (['bad', lower.slice(4)] as const)
      : (['plain', lower] as const);
  return isToken(token) ? { token, name } : null;
}

export interface ResolverSighting {
  ip: string;
  /** The EDNS client subnet it sent, as `192.0.2.0/24`; null when none. */
  ecs: string | null;
  /** Epoch milliseconds of its first query. */
  seen: number;
}

export interface TokenRecord {
  resolvers: ResolverSighting[];
  /** Which names an HTTP request arrived for (the browser could resolve them). */
  beacons: TokenName[];
  expiresAt: number;
}

/** A busy resolver pool may send many addresses; more than this tells the visitor nothing new. */
const MAX_RESOLVERS = 32;

export interface TokenLog {
  sawResolver(token: string, sighting: ResolverSighting): Promise<void>;
  /** Only for a token some resolver asked about: a beacon for an unknown token stores nothing. */
  sawBeacon(token: string, name: TokenName): Promise<void>;
  read(token: string): Promise<TokenRecord | undefined>;
}

/**
 * Kept in the shared TTL cache (in-process, or Redis with REDIS_URL so every worker and instance
 * sees the same test). A read-modify-write: two queries arriving at two instances in the same
 * millisecond may lose one sighting, which the next query of that resolver restores.
 */
export function createTokenLog(cache: TtlCache<TokenRecord>, lifetimeMs: number, now: () => number): TokenLog {
  async function update(token: string, change: (record: TokenRecord) => boolean, create: boolean): Promise<void> {
    const found = await cache.get(token);
    if (found === undefined && !create) return;
    const record = found ?? { resolvers: [], beacons: [], expiresAt: now() + lifetimeMs };
    if (!change(record)) return;
    const ttlSeconds = Math.ceil((record.expiresAt - now()) / 1000);
    if (ttlSeconds > 0) await cache.set(token, record, ttlSeconds);
  }
  return {
    sawResolver: (token, sighting) =>
      update(
        token,
        (record) => {
          const known = record.resolvers.some((seen) => seen.ip === sighting.ip && seen.ecs === sighting.ecs);
          if (known || record.resolvers.length >= MAX_RESOLVERS) return false;
          record.resolvers.push(sighting);
          return true;
        },
        true,
      ),
    sawBeacon: (token, name) =>
      update(
        token,
        (record) => {
          if (record.beacons.includes(name)) return false;
          record.beacons.push(name);
          return true;
        },
        false,
      ),
    async read(token) {
      const record = await cache.get(token);
      return record !== undefined && record.expiresAt > now() ? record : undefined;
    },
  };
}
