import { createLineSplitter } from '../spawn/line-splitter.ts';
import { parseTracerouteLine, type TracerouteHop, type TracerouteLine } from './parse.ts';

/**
 * Reads traceroute's stdout as it arrives. traceroute writes each probe's result the moment it has
 * it, but puts the newline that ends a hop's line at the start of the next hop's write
 * (`\n 2  198.51.100.2  0.031 ms`), so a line reader would hold every hop back until the next one
 * (seconds, behind a silent hop). The unfinished line is therefore given out as soon as it holds
 * all `queries` probes of its hop, and skipped when its newline arrives.
 */
export interface HopReader {
  /** The lines this chunk completes. */
  push(chunk: Buffer | string): TracerouteLine[];
  /**
   * The unfinished line's hop when it is complete, once. Call it when the output pauses: a write of
   * traceroute (one probe, with its annotation) reaches a pipe whole, but a reader could in theory
   * be handed part of it.
   */
  takeCompleteHop(): TracerouteHop | null;
  /** The rest, when the output ends. */
  end(): TracerouteLine[];
}

export function createHopReader(queries: number): HopReader {
  const splitter = createLineSplitter();
  const givenEarly = new Set<number>();
  const parse = (lines: string[]) =>
    lines.flatMap((text) => {
      const line = parseTracerouteLine(text);
      if (line === null || (line.type === 'hop' && givenEarly.has(line.hop))) return [];
      return [line];
    });
  return {
    push: (chunk) => parse(splitter.push(chunk)),
    takeCompleteHop() {
      const line = parseTracerouteLine(splitter.pending());
      if (line?.type !== 'hop' || givenEarly.has(line.hop)) return null;
      if ((line.probes?.length ?? 1) < queries) return null;
      givenEarly.add(line.hop);
      return line;
    },
    end: () => parse(splitter.end()),
  };
}
