import type { ProbeToolDefinition } from '../stream/probe-tool.ts';

/**
 * traceroute probes up to 16 hops at once and waits at most 2 s for a probe, so even 30 silent hops
 * end in about 4 s (measured); 30 s leaves room for slow paths.
 */
export const TRACEROUTE_TOOL = {
  name: 'traceroute',
  baseMs: 30_000,
  perCountMs: 0,
} as const satisfies ProbeToolDefinition;
