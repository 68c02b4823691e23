/**
 * A probe tool's one name (the `tool` label of netinfo_streams_*, the log lines, the time-limit
 * message) and its time limit, `baseMs` plus `perCountMs` for each request or round asked: the
 * stream stops the tool there, a slot is held that long, and the schema states it.
 */
export interface ProbeToolDefinition {
  readonly name: string;
  readonly baseMs: number;
  readonly perCountMs: number;
}

export function probeTimeLimitMs(tool: ProbeToolDefinition, count = 0): number {
  return tool.baseMs + count * tool.perCountMs;
}

/** The limit in words, for the route's description: `count + 5 seconds, 15 s at most`. */
export function describeTimeLimit(tool: ProbeToolDefinition, maxCount = 0): string {
  const base = `${tool.baseMs / 1000} seconds`;
  if (tool.perCountMs === 0) return base;
  const perCount = tool.perCountMs === 1000 ? 'count' : `${tool.perCountMs / 1000} s × count`;
  return `${perCount} + ${base}, ${probeTimeLimitMs(tool, maxCount) / 1000} s at most`;
}
