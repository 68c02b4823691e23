import type { PingLineEvent } from './parse.ts';

/** The fields of the spec's ping `done` event. */
export interface PingSummary {
  alive: boolean;
  packets_sent: number;
  packets_received: number;
  /** Percentage, 0-100, rounded to 2 decimals. */
  packet_loss: number;
  min_ms: number;
  avg_ms: number;
  max_ms: number;
}

/**
 * The `done` fields from the events of one run. A sequence number counts once however many replies
 * it got (DUP! lines, and broadcast duplicates that ping does not mark), and a reply after its
 * `no answer yet` line still counts as received, as ping's own statistics do. Times are those of
 * each sequence number's first reply.
 *
 * packets_sent: ping's `N packets transmitted` when the statistics line was seen (the only place the
 * last unanswered request shows up), else the number of sequence numbers seen.
 *
 * Without any reply: alive false and min/avg/max 0, since the spec types them as numbers, not
 * nullable. Nothing sent at all (a name error): packet_loss 100, nothing came back.
 */
export function summarisePing(events: readonly PingLineEvent[]): PingSummary {
  const firstReplyMs = new Map<number, number>();
  const seqs = new Set<number>();
  let transmitted = 0;
  for (const event of events) {
    if (event.type === 'reply') {
      seqs.add(event.seq);
      if (!firstReplyMs.has(event.seq)) firstReplyMs.set(event.seq, event.time_ms);
    } else if (event.type === 'timeout' || event.type === 'unreachable') {
      seqs.add(event.seq);
    } else if (event.type === 'statistics') {
      transmitted = event.transmitted;
    }
  }
  const sent = Math.max(transmitted, seqs.size);
  const times = [...firstReplyMs.values()];
  const received = times.length;
  const packetLoss = sent === 0 ? 100 : round(((sent - received) / sent) * 100, 2);
  if (received === 0) {
    return {
      alive: false,
      packets_sent: sent,
      packets_received: 0,
      packet_loss: packetLoss,
      min_ms: 0,
      avg_ms: 0,
      max_ms: 0,
    };
  }
  const total = times.reduce((sum, ms) => sum + ms, 0);
  return {
    alive: true,
    packets_sent: sent,
    packets_received: received,
    packet_loss: packetLoss,
    min_ms: Math.min(...times),
    avg_ms: round(total / received, 3),
    max_ms: Math.max(...times),
  };
}

/**
 * Sequence numbers 1..packets_sent that got no reply, timeout or ICMP error line: with -O ping still
 * exits without a `no answer yet` line for its last request, so the stream emits these as timeouts
 * before `done`.
 */
export function unansweredSeqs(events: readonly PingLineEvent[]): number[] {
  const answered = new Set<number>();
  let transmitted = 0;
  for (const event of events) {
    if (event.type === 'reply' || event.type === 'timeout' || event.type === 'unreachable') answered.add(event.seq);
    else if (event.type === 'statistics') transmitted = event.transmitted;
  }
  const missing: number[] = [];
  for (let seq = 1; seq <= transmitted; seq++) if (!answered.has(seq)) missing.push(seq);
  return missing;
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
