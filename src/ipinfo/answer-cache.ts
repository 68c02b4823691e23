/**
 * Serialised /api/v1/json answers by client address. One client asks again and again (a page
 * load, a dashboard polling), and an answer depends only on the address, the loaded data and the
 * reverse name, so it is kept for a short while: a repeat costs a map lookup instead of the
 * lookups, the reverse DNS and the serialisation. An entry is valid only for the data snapshot it
 * was made from, so a data update is visible at once; the TTL bounds how stale a reverse name can
 * be. Two generations of maps give LRU-like eviction without bookkeeping on every hit.
 */
export interface AnswerCache<D> {
  get(ip: string, data: D | undefined): string | undefined;
  set(ip: string, data: D | undefined, body: string): void;
}

export function createAnswerCache<D>(options: {
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
}): AnswerCache<D> {
  const now = options.now ?? Date.now;
  type Entry = { data: D | undefined; body: string; expiresAt: number };
  let current = new Map<string, Entry>();
  let previous = new Map<string, Entry>();
  const half = Math.max(1, Math.floor(options.maxEntries / 2));
  const put = (ip: string, entry: Entry) => {
    if (current.size >= half) {
      previous = current;
      current = new Map();
    }
    current.set(ip, entry);
  };
  return {
    get(ip, data) {
      let entry = current.get(ip);
      if (entry === undefined) {
        entry = previous.get(ip);
        if (entry === undefined) return undefined;
        previous.delete(ip);
        put(ip, entry);
      }
      if (entry.data !== data || entry.expiresAt <= now()) return undefined;
      return entry.body;
    },
    set(ip, data, body) {
      if (options.maxEntries === 0) return;
      put(ip, { data, body, expiresAt: now() + options.ttlMs });
    },
  };
}
