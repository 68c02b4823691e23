import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

interface Counter {
  count: number;
  expiresAt: number;
}

/** How often, in clock time, expired counters are swept so memory tracks active clients only. */
const SWEEP_INTERVAL_MS = 60_000;

/** Rate-limit counters in this process's memory. Exact for one process; see the Redis store for more. */
export function createMemoryRateLimitStore(now: () => number = Date.now): RateLimitStore {
  const counters = new Map<string, Counter>();
  let nextSweep = now() + SWEEP_INTERVAL_MS;

  function sweep(time: number): void {
    if (time < nextSweep) return;
    nextSweep = time + SWEEP_INTERVAL_MS;
    for (const [key, counter] of counters) if (counter.expiresAt <= time) counters.delete(key);
  }

  function current(key: string, time: number): Counter | undefined {
    const counter = counters.get(key);
    return counter && counter.expiresAt > time ? counter : undefined;
  }

  return {
    async consume(requests: readonly CounterRequest[]): Promise<ConsumeResult> {
      const time = now();
      sweep(time);
      const existing = requests.map((request) => current(request.key, time));
      const allowed = requests.every((request, index) => (existing[index]?.count ?? 0) < request.limit);
      if (!allowed) return { allowed, counts: existing.map((counter) => counter?.count ?? 0) };
      const counts = requests.map((request, index) => {
        const counter = existing[index] ?? { count: 0, expiresAt: request.expiresAt };
        counter.count += 1;
        counters.set(request.key, counter);
        return counter.count;
      });
      return { allowed, counts };
    },
    async close(): Promise<void> {
      counters.clear();
    },
  };
}
