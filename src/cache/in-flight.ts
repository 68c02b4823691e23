/**
 * Calls with the same key while one is running share its promise; once it settles, the next call
 * starts afresh, so nothing is cached beyond the call itself. For work whose answer cannot usefully
 * differ between callers asking at the same moment: a WHOIS walk of a referral chain, a live TLS
 * check (fifty viewers of one dashboard cost the host one handshake, not fifty), a DNS question.
 */
export interface SharedWhileInFlight<K, V> {
  (key: K, start: () => Promise<V>): Promise<V>;
  /** The running call for `key`, for a caller that does something else before starting one. */
  get(key: K): Promise<V> | undefined;
}

export function sharedWhileInFlight<K, V>(): SharedWhileInFlight<K, V> {
  const running = new Map<K, Promise<V>>();
  const shared = (key: K, start: () => Promise<V>): Promise<V> => {
    const existing = running.get(key);
    if (existing !== undefined) return existing;
    const started = start().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
  return Object.assign(shared, { get: (key: K) => running.get(key) });
}
