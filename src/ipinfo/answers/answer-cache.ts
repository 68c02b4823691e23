import { createGenerationalMap } from '../../cache/generational-map.ts';

/**
 * /api/v1/json answers (serialised, and the object for `fields`) by address. One client asks again and again (a page
 * load, a dashboard polling), and an answer depends only on the address, the loaded data and the
 * reverse name, so it is kept for a short while: a repeat costs a map lookup instead of the
 * lookups, the reverse DNS and the serialisation. An entry is valid only for the data snapshot it
 * was made from, so a data update is visible at once; the TTL bounds how stale a reverse name can
 * be. Bounded by generations (cache/generational-map.ts).
 */
export interface AnswerCache<D, V = string> {
  get(ip: string, data: D | undefined): V | undefined;
  set(ip: string, data: D | undefined, body: V): void;
}

export function createAnswerCache<D, V = string>(options: {
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
}): AnswerCache<D, V> {
  const now = options.now ?? Date.now;
  const entries = createGenerationalMap<string, { data: D | undefined; body: V; expiresAt: number }>(
    options.maxEntries,
  );
  return {
    get(ip, data) {
      const entry = entries.get(ip);
      if (entry === undefined || entry.data !== data || entry.expiresAt <= now()) return undefined;
      return entry.body;
    },
    set(ip, data, body) {
      if (options.maxEntries === 0) return;
      entries.set(ip, { data, body, expiresAt: now() + options.ttlMs });
    },
  };
}
