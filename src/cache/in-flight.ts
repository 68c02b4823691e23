/**
 * Calls with the same key while one is running share its promise; once it settles, the next call
 * starts afresh, so nothing is cached beyond the call itself. For live checks (a TLS handshake)
 * whose answer cannot usefully differ between callers asking at the same moment: fifty viewers of
 * one dashboard cost the upstream one connection, not fifty.
 */
export function sharedWhileInFlight<K, V>(run: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const running = new Map<K, Promise<V>>();
  return (key) => {
    const existing = running.get(key);
    if (existing !== undefined) return existing;
    const started = run(key).finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}
