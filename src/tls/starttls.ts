import type net from 'node:net';
import { TlsCheckError } from './check-error.ts';
import { addressLiteral, readReply, type StarttlsProtocol, starttlsSteps } from './starttls-replies.ts';

const NAMES: Readonly<Record<StarttlsProtocol, string>> = { smtp: 'SMTP', imap: 'IMAP', pop3: 'POP3', ftp: 'FTP' };
const A_REPLY: Readonly<Record<StarttlsProtocol, string>> = {
  smtp: 'an SMTP reply',
  imap: 'an IMAP response',
  pop3: 'a POP3 response',
  ftp: 'an FTP reply',
};

/** A reply quoted in an error message: one line, printable, short. */
function quote(text: string): string {
  const printable = text
    .replace(/\r?\n$/, '')
    .replace(/\r?\n/g, ' | ')
    .replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 120 ? `${printable.slice(0, 120)}...` : printable);
}

/**
 * Runs the protocol's STARTTLS exchange on a connected socket, leaving it paused and ready for
 * the TLS handshake. Fails with a TlsCheckError of kind 'starttls' naming the step when the server
 * says nothing before `signal` aborts, closes, sends what is not a reply, or refuses; and when it
 * sends anything after its go-ahead (bytes that would be read as TLS, the STARTTLS injection of
 * CVE-2011-0411 turned around).
 */
export async function negotiateStarttls(
  socket: net.Socket,
  protocol: StarttlsProtocol,
  where: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<void> {
  let buffer = '';
  let closed: string | null = null;
  let wake: (() => void) | null = null;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    wake?.();
  };
  const onEnd = () => {
    closed = 'closed the connection';
    wake?.();
  };
  const onError = (error: NodeJS.ErrnoException) => {
    closed = `connection failed (${error.code ?? error.message})`;
    wake?.();
  };
  const onAbort = () => wake?.();
  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.on('error', onError);
  signal.addEventListener('abort', onAbort);
  const label = `${where}: ${NAMES[protocol]} STARTTLS`;
  try {
    for (const step of starttlsSteps(protocol, addressLiteral(socket.localAddress ?? '127.0.0.1'))) {
      const stepName = step.command === null ? 'greeting' : step.name;
      if (step.command !== null) socket.write(`${step.command}\r\n`);
      for (;;) {
        const read = readReply(protocol, buffer, step.command === null ? 'greeting' : 'command');
        if (read.kind === 'garbage') {
          throw new TlsCheckError(
            'starttls',
            `${label}, ${stepName}: the answer is not ${A_REPLY[protocol]} (${quote(read.line)})`,
          );
        }
        if (read.kind === 'reply') {
          buffer = buffer.slice(read.consumed);
          if (read.status !== step.expect) {
            throw new TlsCheckError(
              'starttls',
              `${label}, ${stepName}: the server refused (${quote(read.text)}; ${step.expect} was needed)`,
            );
          }
          break;
        }
        if (signal.aborted) {
          throw new TlsCheckError('starttls', `${label}, ${stepName}: no answer within ${timeoutMs} ms`);
        }
        if (closed !== null) throw new TlsCheckError('starttls', `${label}, ${stepName}: the server ${closed}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
    }
    if (buffer !== '') {
      throw new TlsCheckError(
        'starttls',
        `${label}: the server sent data after its go-ahead, before the TLS handshake (${quote(buffer)})`,
      );
    }
  } finally {
    socket.pause();
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('error', onError);
    signal.removeEventListener('abort', onAbort);
  }
}
