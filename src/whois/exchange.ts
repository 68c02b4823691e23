import net from 'node:net';
import { decodeWhoisText } from './decode.ts';

/**
 * One RFC 3912 exchange: connect, send the query and CRLF, read until the server closes. The
 * address is an IP the caller resolved and checked (target policy); nothing here resolves names.
 */

/** Larger than any real answer (the largest in the shared corpora is ~30 KiB), small enough to bound memory. */
export const MAX_WHOIS_ANSWER_BYTES = 512 * 1024;

export type WhoisFailureKind = 'timeout' | 'refused' | 'unreachable' | 'reset' | 'too-large' | 'empty' | 'network';

export class WhoisExchangeError extends Error {
  override name = 'WhoisExchangeError';
  readonly kind: WhoisFailureKind;

  constructor(kind: WhoisFailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface WhoisExchangeOptions {
  address: string;
  port: number;
  query: string;
  /** Bounds the whole exchange: connecting, sending and reading. */
  timeoutMs: number;
  maxBytes?: number;
  /** Ends the exchange as a timeout: a deadline shared with the steps before it. */
  deadline?: AbortSignal;
}

function describeSocketError(error: NodeJS.ErrnoException, received: number): WhoisExchangeError {
  switch (error.code) {
    case 'ECONNREFUSED':
      return new WhoisExchangeError('refused', 'connection refused');
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return new WhoisExchangeError('unreachable', `host unreachable (${error.code})`);
    case 'ECONNRESET':
    case 'EPIPE':
      return new WhoisExchangeError('reset', `connection reset after ${received} bytes`);
    default:
      return new WhoisExchangeError('network', `${error.code ?? 'socket error'}: ${error.message}`);
  }
}

export interface WhoisAnswer {
  /** The decoded answer. */
  readonly text: string;
  /**
   * The server reset the connection after sending it instead of closing cleanly. Some servers always
   * end so, but a reset can also cut an answer short: nothing tells the two apart.
   */
  readonly endedByReset: boolean;
}

/** The answer; throws WhoisExchangeError saying what went wrong. */
export function exchangeWhois(options: WhoisExchangeOptions): Promise<WhoisAnswer> {
  const maxBytes = options.maxBytes ?? MAX_WHOIS_ANSWER_BYTES;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let connected = false;
    let settled = false;
    const socket = net.connect({ host: options.address, port: options.port });

    const finish = (error: WhoisExchangeError | null, endedByReset = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.deadline?.removeEventListener('abort', onTimeout);
      socket.destroy();
      if (error) reject(error);
      else resolve({ text: decodeWhoisText(Buffer.concat(chunks)), endedByReset });
    };
    const onTimeout = () => {
      const stage = connected ? `no complete answer (${received} bytes received)` : 'could not connect';
      finish(new WhoisExchangeError('timeout', `${stage} within ${options.timeoutMs} ms`));
    };
    // Either the exchange's own timer or the hop's deadline (shared with resolving the name) ends it.
    const timer = setTimeout(onTimeout, options.timeoutMs);
    if (options.deadline?.aborted) queueMicrotask(onTimeout);
    options.deadline?.addEventListener('abort', onTimeout, { once: true });

    socket.setNoDelay(true);
    socket.on('connect', () => {
      connected = true;
      socket.write(`${options.query}\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        finish(new WhoisExchangeError('too-large', `answer larger than ${maxBytes} bytes; stopped reading`));
        return;
      }
      chunks.push(chunk);
    });
    socket.on('end', () => {
      if (received === 0) finish(new WhoisExchangeError('empty', 'closed the connection without answering'));
      else finish(null);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Some servers reset the connection right after their answer instead of closing it cleanly:
      // what arrived before the reset is the answer, marked as possibly cut short.
      if ((error.code === 'ECONNRESET' || error.code === 'EPIPE') && received > 0) finish(null, true);
      else finish(describeSocketError(error, received));
    });
  });
}
