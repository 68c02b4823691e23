import { createHook } from 'node:async_hooks';

/**
 * Node builds each queue entry with an object literal whose first keys are computed symbols;
 * V8 takes the hidden class ("map") of such literals from a cache that holds it weakly. When a full
 * GC runs at a moment when no entry is alive, V8 can drop those maps and the next entries get new
 * ones; observed here, after startup work such as Fastify's plugin loading and one full GC, the
 * entries' creation in `nextTick` stays on a slow path for the rest of the process (our reading:
 * its stores have seen too many maps and went generic). Node's HTTP server calls `nextTick` about
 * seven times per request: the slow form cost 0.36 µs per call instead of 0.04 µs, about a tenth of
 * the server time of /api/v1/ipv6 (docs/performance.md says how it was measured). With one entry
 * kept alive the maps stay, and so does the fast form.
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

/** For the test. */
export function nextTickShapeRetained(): boolean {
  return retained !== undefined;
}
