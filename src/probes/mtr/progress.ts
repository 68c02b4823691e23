import type { MtrLine } from './parse.ts';

/** One hop's figures so far, as the stream sends them (without the hostname, which the session adds). */
export interface MtrHopStats {
  /** From 1 (mtr's raw index + 1). */
  hop: number;
  /** The address that answered last; null while the hop has never answered. */
  ip: string | null;
  /** Probes sent to this hop. */
  sent: number;
  /** Probes answered (each once, however late). */
  received: number;
  /** Percent of the probes no longer awaited that got no answer, 0-100, 2 decimals. */
  loss: number;
  last_ms: number | null;
  avg_ms: number | null;
  best_ms: number | null;
  worst_ms: number | null;
  stdev_ms: number | null;
}

/** Turns the parsed lines of one mtr run into hop figures as they change, and the final table. Pure. */
export interface MtrProgress {
  /** The hops whose figures this line changed (in hop order), each only when the stream shows it. */
  accept(line: MtrLine): MtrHopStats[];
  /**
   * After mtr exited: every shown hop's final figures (nothing is awaited any more) and whether the
   * destination answered, or null when mtr failed (a non-zero exit, or not one probe sent).
   */
  finish(exitCode: number | null): { hops: MtrHopStats[]; reached: boolean } | null;
  readonly toolError: string | null;
}

interface HopState {
  ip: string | null;
  sent: number[];
  replied: Set<number>;
  /** Reply times in ms, in the order they came. */
  times: number[];
  /** What the figures last sent for this hop were made of, to send it again only when they changed. */
  lastKey: string | null;
}

/**
 * Which hops the stream shows, as mtr's own display and report do (mtr's net_max): up to the first
 * hop the destination answered from; when it never answered, up to one past the deepest hop that
 * answered (mtr keeps probing further hops, which stay silent). Hops beyond are not sent.
 *
 * A probe counts as lost once mtr sent the hop's next probe without an answer to it (one round, a
 * second, later), or when mtr exited; until then it is awaited and `loss` leaves it out, as mtr's
 * own Loss% does. So a hop's first event comes with its first answer or its first lost probe, and it
 * is sent again each time its figures change. A reply that comes after its probe was counted lost
 * still counts as received.
 */
export function createMtrProgress(options: { destination: string; maxHops: number }): MtrProgress {
  const hops: HopState[] = [];
  let anySent = false;
  let toolError: string | null = null;

  const state = (index: number): HopState => {
    let hop = hops[index];
    if (!hop) {
      hop = { ip: null, sent: [], replied: new Set(), times: [], lastKey: null };
      hops[index] = hop;
    }
    return hop;
  };

  /** The number of hops shown (see above). */
  const shown = (): number => {
    let deepestAnswered = -1;
    for (let i = 0; i < hops.length; i++) {
      const ip = hops[i]?.ip ?? null;
      if (ip === options.destination) return i + 1;
      if (ip !== null) deepestAnswered = i;
    }
    return Math.min(deepestAnswered + 2, hops.length);
  };

  const stats = (index: number, running: boolean): MtrHopStats => {
    const hop = state(index);
    const lastSeq = hop.sent.at(-1);
    const awaited = running && lastSeq !== undefined && !hop.replied.has(lastSeq) ? 1 : 0;
    const settled = hop.sent.length - awaited;
    const received = Math.min(hop.replied.size, hop.sent.length);
    const answeredOfSettled = Math.min(received, settled);
    const loss = settled === 0 ? 0 : round(((settled - answeredOfSettled) / settled) * 100, 2);
    const { times } = hop;
    const counts = { hop: index + 1, ip: hop.ip, sent: hop.sent.length, received, loss };
    if (times.length === 0) {
      return {
        ...counts,
        last_ms: null,
        avg_ms: null,
        best_ms: null,
        worst_ms: null,
        stdev_ms: null,
      };
    }
    const avg = times.reduce((sum, ms) => sum + ms, 0) / times.length;
    // Sample standard deviation, as mtr's StDev (0 with one reply).
    const stdev =
      times.length < 2 ? 0 : Math.sqrt(times.reduce((sum, ms) => sum + (ms - avg) ** 2, 0) / (times.length - 1));
    return {
      ...counts,
      last_ms: times.at(-1) ?? null,
      avg_ms: round(avg, 3),
      best_ms: Math.min(...times),
      worst_ms: Math.max(...times),
      stdev_ms: round(stdev, 3),
    };
  };

  /**
   * Hop figures for the stream: only hops shown, with a probe no longer awaited, whose figures changed.
   * A probe going out alone changes nothing but `sent`; that waits for the round's outcome (the answer,
   * or the probe given up), so a hop is sent once a round, plus when its address changes.
   */
  const changed = (): MtrHopStats[] => {
    const out: MtrHopStats[] = [];
    const count = shown();
    for (let i = 0; i < count; i++) {
      const hop = state(i);
      const lastSeq = hop.sent.at(-1);
      if (lastSeq === undefined) continue;
      const settled = hop.sent.length - (hop.replied.has(lastSeq) ? 0 : 1);
      if (settled === 0 && hop.replied.size === 0) continue; // only an awaited probe so far
      const key = `${settled} ${hop.replied.size} ${hop.times.length} ${hop.ip}`;
      if (key === hop.lastKey) continue;
      hop.lastKey = key;
      out.push(stats(i, true));
    }
    return out;
  };

  const inRange = (hop: number) => hop >= 0 && hop < options.maxHops;

  return {
    accept(line) {
      switch (line.type) {
        case 'sent': {
          if (!inRange(line.hop)) return [];
          anySent = true;
          const hop = state(line.hop);
          if (hop.sent.includes(line.seq)) return [];
          hop.sent.push(line.seq);
          // The previous probe of this hop is lost now if it was not answered.
          return hop.sent.length > 1 ? changed() : [];
        }
        case 'host': {
          if (!inRange(line.hop)) return [];
          const hop = state(line.hop);
          if (hop.ip === line.ip) return [];
          hop.ip = line.ip;
          return changed();
        }
        case 'reply': {
          if (!inRange(line.hop)) return [];
          const hop = state(line.hop);
          // Without a sequence number (older mtr), the reply is taken as the latest probe's.
          const seq = line.seq ?? hop.sent.at(-1);
          if (seq === undefined || hop.replied.has(seq) || !hop.sent.includes(seq)) return [];
          hop.replied.add(seq);
          hop.times.push(round(line.usec / 1000, 3));
          return changed();
        }
        case 'error':
          toolError = line.message;
          return [];
        default:
          return [];
      }
    },
    finish(exitCode) {
      if (exitCode !== 0 || !anySent) return null;
      const count = shown();
      const final: MtrHopStats[] = [];
      for (let i = 0; i < count; i++) if (state(i).sent.length > 0) final.push(stats(i, false));
      return { hops: final, reached: hops.some((hop) => hop?.ip === options.destination) };
    },
    get toolError() {
      return toolError;
    },
  };
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
