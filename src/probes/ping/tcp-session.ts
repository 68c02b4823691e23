import type { TcpConnectOutcome } from '../../net/tcp-connect.ts';
import { timeTcpConnect } from '../../net/tcp-connect.ts';
import type { InProcessSession } from '../stream/probe-stream.ts';
import type { PingDoneEvent, PingEvent, PingReplyEvent, PingTimeoutEvent } from './events.ts';

const TCP_PING_INTERVAL_MS = 1000;
/** How long one connect may take before it is a `timeout`. */
export const TCP_PING_TIMEOUT_MS = 2000;
export const TCP_PING_DEFAULT_PORT = 443;

type Connect = (options: Parameters<typeof timeTcpConnect>[0]) => Promise<TcpConnectOutcome>;

/**
 * A TCP ping: `count` connects timed by the service itself, one at a time. Attempt n starts a second
 * after attempt n-1 started, or when it ended if it took longer.
 */
export function createTcpPingSession(options: {
  address: string;
  family: 4 | 6;
  port: number;
  count: number;
  emit: (event: PingEvent) => void;
  connect?: Connect;
}): InProcessSession {
  const { address, family, port, count, emit } = options;
  const connect = options.connect ?? timeTcpConnect;
  return {
    async run(signal) {
      const times: number[] = [];
      let sent = 0;
      for (let seq = 1; seq <= count; seq++) {
        const started = performance.now();
        const outcome = await connect({ address, port, family, timeoutMs: TCP_PING_TIMEOUT_MS, signal });
        if (outcome.kind === 'stopped') return { events: [] };
        sent++;
        if (outcome.kind === 'connected') {
          times.push(outcome.ms);
          const reply: PingReplyEvent = { type: 'reply', seq, ip: address, time_ms: outcome.ms, ttl: null };
          emit(reply);
        } else {
          const timeout: PingTimeoutEvent = { type: 'timeout', seq, reason: outcome.reason };
          emit(timeout);
        }
        if (seq < count && !(await pause(started + TCP_PING_INTERVAL_MS - performance.now(), signal))) {
          return { events: [] };
        }
      }
      return { events: [summary(sent, times)] };
    },
  };
}

/** Waits `ms` (nothing when not positive); false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function summary(sent: number, times: number[]): PingDoneEvent {
  const received = times.length;
  const loss = sent === 0 ? 100 : Math.round(((sent - received) / sent) * 100 * 100) / 100;
  if (received === 0) {
    return {
      type: 'done',
      alive: false,
      packets_sent: sent,
      packets_received: 0,
      packet_loss: loss,
      min_ms: 0,
      avg_ms: 0,
      max_ms: 0,
      duplicates: 0,
    };
  }
  return {
    type: 'done',
    alive: true,
    packets_sent: sent,
    packets_received: received,
    packet_loss: loss,
    min_ms: Math.min(...times),
    avg_ms: Math.round((times.reduce((sum, ms) => sum + ms, 0) / received) * 1000) / 1000,
    max_ms: Math.max(...times),
    duplicates: 0,
  };
}
