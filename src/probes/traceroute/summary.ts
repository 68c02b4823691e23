import type { TracerouteLine } from './parse.ts';

/** The fields of the spec's traceroute `done` event. */
export interface TracerouteSummary {
  total_hops: number;
  reached: boolean;
}

/**
 * Reached means the destination itself answered some probe, whatever the annotation: `!H` from the
 * last router (`3  198.51.100.2  3049 ms !H`) is not reached, while the target's own `!X` is.
 */
export function isDestinationReached(lines: readonly TracerouteLine[], destination: string): boolean {
  return lines.some((line) => line.type === 'hop' && (line.probes ?? [line]).some((probe) => probe.ip === destination));
}

/** total_hops is the last hop line's number; the destination is the header's address. */
export function summariseTraceroute(lines: readonly TracerouteLine[]): TracerouteSummary {
  let destination: string | null = null;
  let totalHops = 0;
  for (const line of lines) {
    if (line.type === 'header') destination = line.resolved_ip;
    else if (line.type === 'hop') totalHops = Math.max(totalHops, line.hop);
  }
  return { total_hops: totalHops, reached: destination !== null && isDestinationReached(lines, destination) };
}
