import type { FastifyBaseLogger } from 'fastify';
import { deriveUpstreamCaps, processOpenFilesLimit, type UpstreamCapDemand } from './descriptors.ts';
import type { InFlightCap, InFlightSlots } from './in-flight.ts';

/** Makes the in-flight cap of one upstream tool: what its 429 names, and how long one call may hold a slot. */
export type InFlightCapMaker<K extends string> = (name: K, what: string, holdMs: number) => InFlightCap;

/**
 * What holds upstream sockets is capped in flight, the caps fitted under the open-files limit
 * (`openFilesLimit` undefined: this process's; null: none known) minus FD_RESERVE. `slots` is the
 * streams' `createStreamSlots`, handed in so this folder does not import that one.
 */
export function createUpstreamCaps<K extends string>(
  demands: Record<K, UpstreamCapDemand>,
  options: {
    openFilesLimit: number | null | undefined;
    fdReserve: number;
    now: () => number;
    log: FastifyBaseLogger;
    slots: (limits: { maxConcurrent: number; maxPerClient: number }) => InFlightSlots;
  },
): InFlightCapMaker<K> {
  const limit = options.openFilesLimit === undefined ? processOpenFilesLimit() : options.openFilesLimit;
  const upstream = deriveUpstreamCaps(demands, limit, options.fdReserve);
  if (upstream.reduced) {
    options.log.warn(
      { caps: upstream.caps, budget: upstream.budget },
      'in-flight caps lowered to fit the open-files limit minus FD_RESERVE',
    );
  }
  return (name, what, holdMs) => ({
    what,
    holdMs,
    now: options.now,
    slots: options.slots({
      maxConcurrent: upstream.caps[name].maxInFlight,
      maxPerClient: upstream.caps[name].maxPerClient,
    }),
  });
}
