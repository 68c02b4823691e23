import { createHook } from 'node:async_hooks';

/**
 * Keeps one of Node's internal `process.nextTick` queue entries alive for the life of the process.
 *
 * Why: Node builds each queue entry with an object literal whose first keys are computed symbols;
 * V8 takes the hidden class ("map") of such literals from a cache that holds it weakly. When a full
 * GC runs at a moment when no entry is alive, V8 drops those maps and the next entry gets new ones.
 * After a few such GCs the stores in `nextTick` have seen too many maps and fall back to their
 * generic, slow form for good. Node's HTTP server calls `nextTick` about seven times per request:
 * in this service the slow form cost 0.36 µs per call instead of 0.04 µs, about a tenth of the
 * server time of /api/v1/ipv6 (measured with `npm run bench`; see docs/performance.md). An entry
 * that stays alive keeps its map, and with it the fast form.
 *
 * The only public way to reach an entry is an async hook, enabled here for one `nextTick` call at
 * startup and disabled at once, so no hook runs while the service serves requests.
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

/** For the test: whether an entry is held. */
export function nextTickShapeRetained(): boolean {
  return retained !== undefined;
}
