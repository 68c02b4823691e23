import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

interface Counter {
  count: number;
  expiresAt: number;
}

/** How often, in clock time, expired counters are swept so memory tracks active clients only. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Rate-limit counters in this process's memory. Exact for one process; see the Redis store for more.
 * Answers synchronously: it runs on every API request, and a promise there is a measurable cost.
 */
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
    consume(requests: readonly CounterRequest[]): ConsumeResult {
      const time = now();
      sweep(time);
      const existing = requests.map((request) => current(request.key, time));
      const allowed = requests.every((request, index) => (existing[index]?.count ?? 0) < request.limit);
      if (!allowed) return { allowed, counts: existing.map((counter) => counter?.count ?? 0) };
      const counts = requests.map((request, index) => {
        let counter = existing[index];
        if (counter === undefined) {
          counter = { count: 0, expiresAt: request.expiresAt };
          counters.set(request.key, counter);
        }
        counter.count += 1;
        return counter.count;
      });
      return { allowed, counts };
    },
    async close(): Promise<void> {
      counters.clear();
    },
  };
}
