/**
 * A cache of JSON-serialisable values that expire. Async so that a shared (Redis) implementation
 * fits the same interface; the in-process one below is the embedded default.
 */
export interface TtlCache<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T, ttlSeconds: number): Promise<void>;
}

/** In-process LRU with per-entry expiry; bounded so a flood of distinct keys cannot grow memory. */
export function createMemoryTtlCache<T>(options: { maxEntries: number; now?: () => number }): TtlCache<T> {
  const { maxEntries } = options;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      // Re-insert so the Map's insertion order is least recently used first.
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    async set(key, value, ttlSeconds) {
      if (maxEntries <= 0 || ttlSeconds <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlSeconds * 1000 });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
  };
}
