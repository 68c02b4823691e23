import type { ConsumeResult, CounterRequest, RateLimitStore } from './store.ts';

interface Window {
  readonly expiresAt: number;
  readonly counts: Map<string, number>;
}

/** How often, in clock time, expired windows are dropped so memory tracks active clients only. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Rate-limit counters in this process's memory. Exact for one process; see the Redis store for more.
 *
 * Counters are grouped by window: the few window names are the same string objects request after
 * request (the limiter keeps them), so finding a window is cheap, and a subject is hashed once for
 * all its windows. A window's counters expire together, so sweeping drops whole maps. Answers
 * synchronously: it runs on every API request, and a promise there is a measurable cost.
 */
export function createMemoryRateLimitStore(now: () => number = Date.now): RateLimitStore {
  const windows = new Map<string, Window>();
  let nextSweep = now() + SWEEP_INTERVAL_MS;

  function sweep(time: number): void {
    if (time < nextSweep) return;
    nextSweep = time + SWEEP_INTERVAL_MS;
    for (const [name, window] of windows) if (window.expiresAt <= time) windows.delete(name);
  }

  function windowOf(request: CounterRequest, time: number): Window {
    const existing = windows.get(request.window);
    if (existing !== undefined && existing.expiresAt > time) return existing;
    const fresh = { expiresAt: request.expiresAt, counts: new Map<string, number>() };
    windows.set(request.window, fresh);
    return fresh;
  }

  return {
    consume(requests: readonly CounterRequest[], amount = 1): ConsumeResult {
      const time = now();
      sweep(time);
      // Index loops and arrays of their final length: this runs on every request, with two
      // counters, and arrays grown by push() start with room for seventeen.
      const counters = new Array<Map<string, number>>(requests.length);
      const counts = new Array<number>(requests.length);
      let allowed = true;
      for (let index = 0; index < requests.length; index++) {
        const request = requests[index] as CounterRequest;
        const counter = windowOf(request, time).counts;
        const count = counter.get(request.subject) ?? 0;
        if (count + amount > request.limit) allowed = false;
        counters[index] = counter;
        counts[index] = count;
      }
      if (!allowed) return { allowed, counts };
      for (let index = 0; index < requests.length; index++) {
        const count = (counts[index] as number) + amount;
        counters[index]?.set((requests[index] as CounterRequest).subject, count);
        counts[index] = count;
      }
      return { allowed, counts };
    },
    async close(): Promise<void> {
      windows.clear();
    },
  };
}
