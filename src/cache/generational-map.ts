/**
 * A bounded map that forgets its least recently used entries in bulk, for per-client state on the
 * request path. Entries live in two generations of at most half the bound each: a hit in the
 * previous generation moves the entry to the current one, and when the current generation is full
 * it becomes the previous one and the old previous is dropped whole. A hit in the current
 * generation, the usual case, does no bookkeeping at all (an LRU list would relink on every hit).
 */
export interface GenerationalMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
}

export function createGenerationalMap<K, V>(maxEntries: number): GenerationalMap<K, V> {
  const half = Math.max(1, Math.floor(maxEntries / 2));
  let current = new Map<K, V>();
  let previous = new Map<K, V>();
  function set(key: K, value: V): void {
    if (current.size >= half) {
      previous = current;
      current = new Map();
    }
    current.set(key, value);
  }
  return {
    get(key) {
      const value = current.get(key);
      if (value !== undefined) return value;
      const old = previous.get(key);
      if (old === undefined) return undefined;
      previous.delete(key);
      set(key, old);
      return old;
    },
    set,
  };
}
