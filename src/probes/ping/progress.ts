import type { PingDoneEvent, PingReplyEvent, PingTimeoutEvent } from './events.ts';
import type { PingLineEvent } from './parse.ts';
import { summarisePing, unansweredSeqs } from './summary.ts';

export type PingProgressEvent = PingReplyEvent | PingTimeoutEvent | PingDoneEvent;

/** Turns the parsed lines of one ping run into stream events, as they arrive. Pure: no I/O, no clock. */
export interface PingProgress {
  /** The events this line makes (none for headers, statistics, duplicates, seqs out of range). */
  accept(line: PingLineEvent): PingProgressEvent[];
  /**
   * After ping exited: the timeouts ping never printed (its last request's) and `done`, or null when
   * ping ended without its statistics (it failed; `toolError` may say why).
   */
  finish(): PingProgressEvent[] | null;
  /** The last `ping: ...` complaint on stderr, if any. */
  readonly toolError: string | null;
}

/**
 * One event per seq from 1 to count: the first reply, `no answer yet` line or ICMP error line wins.
 * Two exceptions, both so that the events agree with `done`: a duplicate reply is dropped (and
 * counted), and a reply after its `no answer yet` line is sent as `reply` with `late: true`, since
 * ping counts it as received. Seqs above count are ignored: ping never sends them without -w, and
 * the stream must not report packets nobody asked for.
 */
export function createPingProgress(count: number): PingProgress {
  const kept: PingLineEvent[] = [];
  const replied = new Set<number>();
  const noReplySent = new Set<number>();
  let duplicates = 0;
  let statisticsSeen = false;
  let toolError: string | null = null;
  const inRange = (seq: number) => seq >= 1 && seq <= count;

  function accept(line: PingLineEvent): PingProgressEvent[] {
    switch (line.type) {
      case 'reply': {
        if (!inRange(line.seq)) return [];
        if (replied.has(line.seq)) {
          duplicates++;
          return [];
        }
        replied.add(line.seq);
        kept.push(line);
        const event: PingReplyEvent = {
          type: 'reply',
          seq: line.seq,
          ip: line.ip,
          time_ms: line.time_ms,
          ttl: line.ttl,
        };
        if (noReplySent.has(line.seq)) event.late = true;
        return [event];
      }
      case 'timeout':
      case 'unreachable': {
        if (!inRange(line.seq) || replied.has(line.seq) || noReplySent.has(line.seq)) return [];
        noReplySent.add(line.seq);
        kept.push(line);
        return [
          line.type === 'timeout'
            ? { type: 'timeout', seq: line.seq, reason: 'no_reply' }
            : { type: 'timeout', seq: line.seq, reason: 'icmp_error', from: line.from, message: line.message },
        ];
      }
      case 'statistics':
        statisticsSeen = true;
        kept.push(line);
        return [];
      case 'error':
        toolError = line.message;
        return [];
      default:
        return [];
    }
  }

  function finish(): PingProgressEvent[] | null {
    if (!statisticsSeen) return null;
    const trailing: PingProgressEvent[] = unansweredSeqs(kept)
      .filter(inRange)
      .map((seq) => ({ type: 'timeout', seq, reason: 'no_reply' }));
    return [...trailing, { type: 'done', ...summarisePing(kept), duplicates }];
  }

  return {
    accept,
    finish,
    get toolError() {
      return toolError;
    },
  };
}
