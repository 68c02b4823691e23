import { Socket } from 'node:net';

/** How one timed TCP connect ended. */
export type TcpConnectOutcome =
  | { kind: 'connected'; ms: number }
  | { kind: 'failed'; reason: 'timeout' | 'refused' | 'unreachable' }
  /** `signal` aborted first: the socket was destroyed, the attempt has no result. */
  | { kind: 'stopped' };

/** Answers that mean nobody listens on the port (a RST). */
const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET']);
/** A connect that gave up by itself (the kernel's SYN retries). */
const TIMED_OUT = new Set(['ETIMEDOUT']);

/**
 * Opens one TCP connection to `address:port` and times it: from the connect call to the socket's
 * `connect` event (the SYN-ACK), in ms with 3 decimals, then closes it at once without sending
 * anything. `refused`: a RST; `unreachable`: an ICMP error or no route (EHOSTUNREACH, ENETUNREACH,
 * EACCES from a prohibit route...); `timeout`: nothing within `timeoutMs`. Never throws.
 */
export function timeTcpConnect(options: {
  address: string;
  port: number;
  family: 4 | 6;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<TcpConnectOutcome> {
  const { signal } = options;
  if (signal.aborted) return Promise.resolve({ kind: 'stopped' });
  return new Promise((resolve) => {
    const socket = new Socket();
    let timer: NodeJS.Timeout | undefined;
    const end = (outcome: TcpConnectOutcome) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('connect');
      socket.destroy();
      resolve(outcome);
    };
    const onAbort = () => end({ kind: 'stopped' });
    signal.addEventListener('abort', onAbort, { once: true });
    // Errors after the outcome (none are expected once destroyed) must not crash the server.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      end({
        kind: 'failed',
        reason: REFUSED.has(code) ? 'refused' : TIMED_OUT.has(code) ? 'timeout' : 'unreachable',
      });
    });
    timer = setTimeout(() => end({ kind: 'failed', reason: 'timeout' }), options.timeoutMs);
    const started = performance.now();
    socket.once('connect', () => {
      end({ kind: 'connected', ms: Math.round((performance.now() - started) * 1000) / 1000 });
    });
    socket.connect({ host: options.address, port: options.port, family: options.family });
  });
}
