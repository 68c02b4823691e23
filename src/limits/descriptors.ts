import { readFileSync } from 'node:fs';

/**
 * The process-wide descriptor reserve (issue 28, item 9): 3,500 concurrent /ssl checks of a server
 * that never answers held 5 sockets each and took all 20,000 descriptors, so /healthz and every
 * other client failed. The capabilities that hold upstream sockets are capped (in-flight.ts); here
 * their global caps are derived so that what they can hold together stays below the open-files
 * limit minus a reserve nobody upstream takes (incoming connections, files, the DNS route, streams).
 */

/** The soft "Max open files" of a /proc/<pid>/limits text; null when absent or unlimited. */
export function readOpenFilesLimit(procLimits: string): number | null {
  const line = procLimits.split('\n').find((row) => row.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === undefined || !/^\d+$/.test(soft)) return null;
  return Number(soft);
}

export interface UpstreamCapDemand {
  /** The configured global cap (calls in flight, all callers). */
  maxInFlight: number;
  maxPerClient: number;
  /** The most descriptors one call holds at once (connections and DNS sockets). */
  socketsPerCall: number;
}

export interface DerivedCaps<K extends string> {
  caps: Record<K, { maxInFlight: number; maxPerClient: number }>;
  /** Descriptors the upstream sockets may take together: the limit minus the reserve (null: no limit known). */
  budget: number | null;
  /** True when the configured caps did not fit the budget and were scaled down. */
  reduced: boolean;
}

/**
 * The caps as configured when their sockets fit `limit - reserve` (the reserve at most half the
 * limit, so a small limit still leaves room for work), else every global cap scaled down by the same
 * factor, at least 1 each, and the per-client caps no larger than their global one.
 */
export function deriveUpstreamCaps<K extends string>(
  demands: Record<K, UpstreamCapDemand>,
  openFilesLimit: number | null,
  reserve: number,
): DerivedCaps<K> {
  const entries = Object.entries(demands) as [K, UpstreamCapDemand][];
  const keep = (scale: number) =>
    Object.fromEntries(
      entries.map(([name, demand]) => {
        const maxInFlight = Math.max(1, Math.floor(demand.maxInFlight * scale));
        return [name, { maxInFlight, maxPerClient: Math.min(demand.maxPerClient, maxInFlight) }];
      }),
    ) as Record<K, { maxInFlight: number; maxPerClient: number }>;
  if (openFilesLimit === null) return { caps: keep(1), budget: null, reduced: false };
  const budget = openFilesLimit - Math.min(reserve, Math.floor(openFilesLimit / 2));
  const demand = entries.reduce((sum, [, cap]) => sum + cap.maxInFlight * cap.socketsPerCall, 0);
  if (demand <= budget) return { caps: keep(1), budget, reduced: false };
  return { caps: keep(budget / demand), budget, reduced: true };
}

/** This process's soft open-files limit, from /proc/self/limits; null where there is none (not Linux). */
export function processOpenFilesLimit(): number | null {
  try {
    return readOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}
