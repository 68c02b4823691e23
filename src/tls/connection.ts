import net from 'node:net';
import tls from 'node:tls';
import { TlsCheckError } from './check-error.ts';
import { negotiateStarttls } from './starttls.ts';
import type { StarttlsProtocol } from './starttls-replies.ts';

/** Where one check connects: the host as asked, the address it resolved to, the port, and how TLS starts. */
export interface Endpoint {
  host: string;
  /** The server name sent in the handshake; null for an IP address. */
  sni: string | null;
  address: string;
  port: number;
  /** The protocol whose upgrade command runs before the handshake; null for TLS from the first byte. */
  starttls: StarttlsProtocol | null;
}

/** The endpoint as error messages name it: 'example.com (192.0.2.1) port 443'. */
export function describeEndpoint(endpoint: Endpoint): string {
  return endpoint.host === endpoint.address
    ? `${endpoint.address} port ${endpoint.port}`
    : `${endpoint.host} (${endpoint.address}) port ${endpoint.port}`;
}

/**
 * What OpenSSL said, without its error-queue dressing: its messages carry a thread id, the error
 * code, the function and the source file and line of Node's OpenSSL build
 * (`40AD81...:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/...c:77:`),
 * of no use to a caller. Node gives the reason itself on `reason`.
 */
export function opensslReason(error: NodeJS.ErrnoException): string {
  const { reason } = error as { reason?: unknown };
  if (typeof reason === 'string' && reason !== '') return reason;
  const fields = error.message.trim().split(':');
  // thread:error:code:library:function:reason:file:line:
  return fields.length >= 6 && fields[1] === 'error' ? (fields[5] ?? error.message) : error.message.trim();
}

function connectFailure(error: NodeJS.ErrnoException, where: string): TlsCheckError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return new TlsCheckError('refused', `${where}: connection refused`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new TlsCheckError('unreachable', `${where}: unreachable (${code})`);
  return new TlsCheckError('unreachable', `${where}: could not connect (${code || error.message})`);
}

export function handshakeFailure(error: NodeJS.ErrnoException, where: string): TlsCheckError {
  const code = error.code ?? '';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|UNKNOWN_PROTOCOL|RECORD_LAYER/.test(code)) {
    return new TlsCheckError('not-tls', `${where} does not speak TLS (OpenSSL: ${opensslReason(error)})`);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return new TlsCheckError(
      'not-tls',
      `${where} closed the connection during the TLS handshake (${code}); it may not speak TLS on this port`,
    );
  }
  return new TlsCheckError(
    'handshake',
    `${where}: TLS handshake failed (${code || 'error'}: ${opensslReason(error)})`,
    code || null,
  );
}

/** A TCP connection to the endpoint, with the STARTTLS exchange done when one is asked for. */
export async function openTransport(endpoint: Endpoint, signal: AbortSignal, timeoutMs: number): Promise<net.Socket> {
  const where = describeEndpoint(endpoint);
  const socket = net.connect({ host: endpoint.address, port: endpoint.port });
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new TlsCheckError('timeout', `${where}: could not connect within ${timeoutMs} ms`));
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('connect', () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        reject(connectFailure(error, where));
      });
    });
    if (endpoint.starttls !== null) await negotiateStarttls(socket, endpoint.starttls, where, signal, timeoutMs);
    return socket;
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

export interface TlsSession {
  socket: tls.TLSSocket;
  /** The OCSP response the server stapled to its certificate, when it stapled one. */
  ocspResponse: Buffer | null;
}

/**
 * Connects (TCP, then STARTTLS when asked) and completes a TLS handshake with `options` added
 * (versions, ciphers, trust). The certificate is never rejected here: it is judged afterwards.
 * The caller destroys the socket.
 */
export async function startTls(
  endpoint: Endpoint,
  options: tls.ConnectionOptions,
  signal: AbortSignal,
  timeoutMs: number,
  /** Called once the ClientHello is on its way (after the connection and any STARTTLS exchange). */
  onHelloSent?: () => void,
): Promise<TlsSession> {
  const where = describeEndpoint(endpoint);
  const transport = await openTransport(endpoint, signal, timeoutMs);
  return new Promise((resolve, reject) => {
    let ocspResponse: Buffer | null = null;
    const socket = tls.connect({
      ...options,
      socket: transport,
      // No SNI for an address: Node would send none for an IP literal anyway, and warns when asked to.
      ...(endpoint.sni === null ? {} : { servername: endpoint.sni }),
      rejectUnauthorized: false,
      requestOCSP: true,
    });
    onHelloSent?.();
    const fail = (error: TlsCheckError) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      transport.destroy();
      reject(error);
    };
    const onAbort = () => fail(new TlsCheckError('timeout', `${where}: no TLS handshake within ${timeoutMs} ms`));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('OCSPResponse', (response: Buffer | undefined) => {
      if (response && response.length > 0) ocspResponse = response;
    });
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve({ socket, ocspResponse });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => fail(handshakeFailure(error, where)));
    socket.on('end', () =>
      fail(
        new TlsCheckError(
          'not-tls',
          `${where} closed the connection during the TLS handshake; it may not speak TLS on this port`,
        ),
      ),
    );
  });
}
