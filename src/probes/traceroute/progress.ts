import type { TracerouteDoneEvent } from './events.ts';
import type { TracerouteHop, TracerouteLine } from './parse.ts';

/** Turns the parsed lines of one traceroute run into hops and `done`. Pure: no I/O, no clock. */
export interface TracerouteProgress {
  /** The hop to send for this line, or null (header, errors, a hop out of order or beyond maxHops). */
  accept(line: TracerouteLine): TracerouteHop | null;
  /** After traceroute exited: `done`, or null when it failed (`toolError` may say why). */
  finish(exitCode: number | null): TracerouteDoneEvent | null;
  readonly toolError: string | null;
}

/**
 * Hops go out in increasing order only, as the spec promises; traceroute prints them so, and a
 * repeated or lower number (which it never prints) would be dropped rather than break the promise.
 * `reached` is judged against the address the service gave traceroute, not what it printed.
 */
export function createTracerouteProgress(options: { destination: string; maxHops: number }): TracerouteProgress {
  const hops: TracerouteHop[] = [];
  let headerSeen = false;
  let toolError: string | null = null;

  return {
    accept(line) {
      if (line.type === 'header') headerSeen = true;
      if (line.type === 'error') toolError = line.message;
      if (line.type !== 'hop') return null;
      const last = hops.at(-1)?.hop ?? 0;
      if (line.hop <= last || line.hop > options.maxHops) return null;
      hops.push(line);
      return line;
    },
    finish(exitCode) {
      // traceroute exits 1 when it cannot send at all (`connect: Network is unreachable`), even
      // after printing its header; a run that ends unreached exits 0.
      if (exitCode !== 0 || (!headerSeen && hops.length === 0)) return null;
      return {
        type: 'done',
        total_hops: hops.at(-1)?.hop ?? 0,
        reached: isDestinationReached(hops, options.destination),
      };
    },
    get toolError() {
      return toolError;
    },
  };
}

/**
 * Reached means the destination itself answered some probe, whatever the annotation: `!H` from the
 * last router (`3  198.51.100.2  3049 ms !H`) is not reached, while the target's own `!X` is.
 */
export function isDestinationReached(lines: readonly TracerouteLine[], destination: string): boolean {
  return lines.some((line) => line.type === 'hop' && (line.probes ?? [line]).some((probe) => probe.ip === destination));
}
