import { createHook } from 'node:async_hooks';

/**
 * One `nextTick` queue entry, kept alive for the life of the process. V8 takes the hidden class
 * ("map") of such entries from a cache that holds it weakly; when a full GC runs while no entry is
 * alive (observed after startup work and one full GC), the next entries get new maps and
 * `nextTick` stays on a slow path for ever: 0.36 µs per call instead of 0.04 µs, about seven calls
 * per request, a tenth of the server time of /api/v1/ipv6 (docs/performance.md). An async hook,
 * enabled for one `nextTick` call at startup, is the only public way to reach an entry.
 */
let retained: object | undefined;

export function retainNextTickShape(): void {
  if (retained !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && retained === undefined) retained = resource;
    },
  });
  hook.enable();
  process.nextTick(() => {});
  hook.disable();
}

/** For the test. */
export function nextTickShapeRetained(): boolean {
  return retained !== undefined;
}
