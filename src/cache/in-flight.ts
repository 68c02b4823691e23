/**
 * Calls with the same key while one is running share its promise; once it settles, the next call
 * starts afresh, so nothing is cached beyond the call itself. For work whose answer cannot usefully
 * differ between callers asking at the same moment: a WHOIS walk of a referral chain, a live TLS
 * check (fifty viewers of one dashboard cost the host one handshake, not fifty).
 */
export function sharedWhileInFlight<K, V>(): (key: K, start: () => Promise<V>) => Promise<V> {
  const running = new Map<K, Promise<V>>();
  return (key, start) => {
    const existing = running.get(key);
    if (existing !== undefined) return existing;
    const started = start().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}
