import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import { TlsCheckError } from './check-error.ts';
import {
  buildClientHello,
  readServerAnswer,
  type ServerAnswer,
  TLS_VERSIONS,
  type TlsVersion,
  VERSION_CODES,
} from './client-hello.ts';
import { type Endpoint, openTransport } from './connection.ts';

/** Per version: true the server chose it, false it refused, null nothing could be learnt. */
export type ProtocolSupport = Record<TlsVersion, boolean | null>;

/** Reads the server's first answer to the hello, until `signal` aborts. */
function awaitAnswer(socket: net.Socket, signal: AbortSignal): Promise<ServerAnswer | 'closed' | 'timeout'> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const finish = (answer: ServerAnswer | 'closed' | 'timeout') => {
      signal.removeEventListener('abort', onAbort);
      socket.off('data', onData);
      socket.off('end', onClosed);
      socket.off('error', onClosed);
      resolve(answer);
    };
    const onAbort = () => finish('timeout');
    const onClosed = () => finish('closed');
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = readServerAnswer(received);
      if (answer.kind !== 'incomplete') finish(answer);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('data', onData);
    socket.on('end', onClosed);
    socket.on('error', onClosed);
    socket.resume();
  });
}

/**
 * One ClientHello offering exactly `version`. The server choosing it is true; an alert, a close,
 * another version or an answer that is not TLS is false; a connection, STARTTLS exchange or time
 * limit that fails before the server could answer says nothing about the version, and is null.
 */
export async function probeVersion(
  endpoint: Endpoint,
  version: TlsVersion,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<boolean | null> {
  let socket: net.Socket;
  try {
    socket = await openTransport(endpoint, signal, timeoutMs);
  } catch (error) {
    if (error instanceof TlsCheckError) return null;
    throw error;
  }
  try {
    socket.write(buildClientHello(version, endpoint.sni, randomBytes(32), randomBytes(32)));
    const answer = await awaitAnswer(socket, signal);
    if (answer === 'timeout') return null;
    return answer !== 'closed' && answer.kind === 'hello' && answer.version === VERSION_CODES[version];
  } finally {
    socket.destroy();
  }
}

/** Every version at once, each on its own connection, beside the main handshake. */
export async function probeProtocols(
  endpoint: Endpoint,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ProtocolSupport> {
  const results = await Promise.all(TLS_VERSIONS.map((version) => probeVersion(endpoint, version, signal, timeoutMs)));
  return Object.fromEntries(TLS_VERSIONS.map((version, index) => [version, results[index] ?? null])) as ProtocolSupport;
}
