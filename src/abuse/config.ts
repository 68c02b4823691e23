import { type ConfigVariable, integerIn } from '../config-values.ts';
import { type CappedTool, inFlightConfigVariables } from '../limits/in-flight.ts';

export const ABUSE_TOOL: CappedTool = {
  calls: 'abuse-contact lookups',
  variable: 'ABUSE',
  // RDAP servers are asked one at a time, each after a DNS question.
  socketsPerCall: 2,
};

/** Findings kept in the in-process cache at most (one is a few hundred bytes). */
export const ABUSE_CACHE_ENTRIES = 10_000;

const abuseCaps = inFlightConfigVariables(ABUSE_TOOL, { all: 200, perClient: 5 });

export const abuseConfigVariables = {
  abuseCacheHours: {
    name: 'ABUSE_CACHE_HOURS',
    defaultText: '24',
    description:
      "How long an address's abuse contact (or the registry's answer that it has none) is served from the cache (`cached: true`); failures are not cached. 0 turns the cache off.",
    parse: integerIn(0, 24 * 30, 24),
  },
  abuseMaxInFlight: abuseCaps.all,
  abuseMaxInFlightPerClient: abuseCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;
