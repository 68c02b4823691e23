import type { X509Certificate } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { authorizationErrorCode, sentChain } from '../tls/certificate.ts';
import { headersFromHttp2, headersFromRaw, type ReceivedHeaders } from './headers.ts';
import type { CheckTarget } from './target-url.ts';

/**
 * One HTTP request of the check, on a connection of its own: TCP to the address the policy
 * checked, TLS with ALPN for https (h2 or http/1.1, whichever the server picks), the request, the
 * response headers, then the body read up to the cap and discarded. The connection is opened here,
 * not by an Agent, so each phase is timed where it happens and nothing is reused between checks.
 */

export type HttpCheckPhase = 'dns' | 'tcp' | 'tls' | 'first_byte' | 'download' | 'redirect';

export class HttpCheckError extends Error {
  override name = 'HttpCheckError';
  readonly phase: HttpCheckPhase;

  constructor(phase: HttpCheckPhase, message: string) {
    super(message);
    this.phase = phase;
  }
}

export const USER_AGENT = 'netinfo-http-check/1';

/** What the TLS handshake showed, read before the connection closes; judged after the timings. */
export interface PeerFacts {
  certificate: X509Certificate | null;
  /** The chain the server sent, its certificate first. */
  chain: X509Certificate[];
  authorized: boolean;
  authorizationError: string | null;
  protocol: string | null;
  cipher: string | null;
}

export interface ExchangeResult {
  status: number;
  httpVersion: string;
  headers: ReceivedHeaders;
  bodyBytes: number;
  bodyTruncated: boolean;
  /** Whether the body read (up to the cap) holds `find`; null when nothing was sought. */
  bodyFound: boolean | null;
  peer: PeerFacts | null;
  /** Milliseconds: connect, handshake (null without TLS), request to response headers, body. */
  tcp: number;
  tls: number | null;
  firstByte: number;
  download: number;
}

export interface ExchangeOptions {
  method: 'GET' | 'HEAD';
  maxBodyBytes: number;
  /** Bytes to look for in the body as it streams past (never kept whole). */
  find?: Buffer;
  /** True when the response is answered from its headers alone (a redirect to follow): no body is read. */
  headersOnly: (status: number, headers: ReceivedHeaders) => boolean;
  signal: AbortSignal;
  timeoutMs: number;
  /** PEM certificates that replace Node's bundled roots (tests trust their own CA). */
  ca?: readonly string[];
  clock: () => number;
}

const TIMED_OUT: Record<HttpCheckPhase, string> = {
  dns: 'no address',
  tcp: 'could not connect',
  tls: 'no TLS handshake',
  first_byte: 'no response headers',
  download: 'the body did not end',
  redirect: 'no redirect',
};

function socketFailure(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `unreachable (${code})`;
  if (code === 'ECONNRESET') return 'connection reset';
  const reason = (error as { reason?: unknown }).reason;
  return `${code ? `${code}: ` : ''}${typeof reason === 'string' && reason !== '' ? reason : error.message}`;
}

export function exchange(target: CheckTarget, address: string, options: ExchangeOptions): Promise<ExchangeResult> {
  const { clock, signal } = options;
  const where =
    target.host === address ? `${address} port ${target.port}` : `${target.host} (${address}) port ${target.port}`;
  return new Promise((resolve, reject) => {
    let phase: HttpCheckPhase = 'tcp';
    let settled = false;
    let secure: tls.TLSSocket | null = null;
    let session: http2.ClientHttp2Session | null = null;
    let peer: PeerFacts | null = null;
    const marks = { start: clock(), connected: 0, secured: 0, sent: 0, headers: 0 };
    let response: Pick<ExchangeResult, 'status' | 'httpVersion' | 'headers'> | null = null;

    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      session?.destroy();
      secure?.destroy();
      socket.destroy();
    };
    const fail = (failedPhase: HttpCheckPhase, message: string) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(new HttpCheckError(failedPhase, `${where}: ${message}`));
    };
    // An answer without a body (HEAD, 204, 304, 101) ends at its headers: download is 0, not the
    // few microseconds between two clock reads.
    const finish = (bodyBytes: number, bodyTruncated: boolean, end = clock()) => {
      if (settled || response === null) return;
      settled = true;
      cleanup();
      resolve({
        ...response,
        bodyBytes,
        bodyTruncated,
        bodyFound: options.find === undefined ? null : found,
        peer,
        tcp: marks.connected - marks.start,
        tls: secure ? marks.secured - marks.connected : null,
        firstByte: marks.headers - marks.sent,
        download: end - marks.headers,
      });
    };
    // The time limit (a TimeoutError), or the caller leaving (the route aborts: nobody reads this).
    const onAbort = () =>
      fail(
        phase,
        (signal.reason as Error | undefined)?.name === 'TimeoutError'
          ? `${TIMED_OUT[phase]} within ${options.timeoutMs} ms`
          : 'stopped: the caller left',
      );
    signal.addEventListener('abort', onAbort, { once: true });

    let found = false;
    // The last bytes of the previous chunk: the text sought may straddle two chunks.
    let tail: Buffer = Buffer.alloc(0);
    const seek = (chunk: Buffer) => {
      const find = options.find;
      if (find === undefined || found) return;
      const window = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
      found = window.includes(find);
      tail = window.subarray(Math.max(0, window.length - find.length + 1));
    };
    /** Counts body bytes up to the cap; the caller calls `end` when the body is complete. */
    const body = () => {
      let bytes = 0;
      return {
        add: (chunk: Buffer) => {
          seek(chunk.subarray(0, Math.max(0, options.maxBodyBytes - bytes)));
          bytes += chunk.length;
          if (bytes > options.maxBodyBytes) finish(options.maxBodyBytes, true);
        },
        end: () => finish(bytes, false),
      };
    };
    const onHeaders = (status: number, httpVersion: string, headers: ReceivedHeaders) => {
      marks.headers = clock();
      phase = 'download';
      response = { status, httpVersion, headers };
      if (options.method === 'HEAD' || options.headersOnly(status, headers)) finish(0, false, marks.headers);
    };
    const path = `${target.url.pathname}${target.url.search}`;

    const requestHttp1 = (connection: net.Socket) => {
      const request = http.request(
        {
          createConnection: () => connection,
          method: options.method,
          path,
          headers: { host: target.url.host, 'user-agent': USER_AGENT, accept: '*/*' },
        },
        (incoming) => {
          onHeaders(incoming.statusCode ?? 0, incoming.httpVersion, headersFromRaw(incoming.rawHeaders));
          if (settled) return;
          const counter = body();
          incoming.on('data', (chunk: Buffer) => counter.add(chunk));
          incoming.on('end', counter.end);
          incoming.on('error', (error: NodeJS.ErrnoException) => fail('download', socketFailure(error)));
          incoming.on('close', () => {
            if (!incoming.complete) fail('download', 'the connection closed before the body ended');
          });
        },
      );
      // 101 Switching Protocols is the last HTTP this connection will carry: it is the answer, and
      // the check ends there. Node treats it as an upgrade when it names one (without an 'upgrade'
      // listener it would destroy the socket: an error) and else as a 1xx to wait past, for a next
      // response that never comes.
      const switched = (answer: { statusCode?: number; httpVersion: string; rawHeaders: string[] }) => {
        if (answer.statusCode !== 101) return;
        onHeaders(101, answer.httpVersion, headersFromRaw(answer.rawHeaders));
        finish(0, false, marks.headers);
      };
      request.on('information', switched);
      request.on('upgrade', switched);
      request.on('error', (error: NodeJS.ErrnoException) => fail(phase, socketFailure(error)));
      request.end();
    };

    const requestHttp2 = (connection: tls.TLSSocket) => {
      session = http2.connect(`https://${target.url.host}`, { createConnection: () => connection });
      session.on('error', (error: NodeJS.ErrnoException) => fail(phase, socketFailure(error)));
      const stream = session.request(
        {
          ':method': options.method,
          ':path': path,
          ':authority': target.url.host,
          'user-agent': USER_AGENT,
          accept: '*/*',
        },
        { endStream: true },
      );
      stream.on('response', (headers) => {
        onHeaders(Number(headers[':status']), '2', headersFromHttp2(headers));
      });
      const counter = body();
      stream.on('data', (chunk: Buffer) => counter.add(chunk));
      stream.on('end', counter.end);
      stream.on('error', (error: NodeJS.ErrnoException) => fail(phase, socketFailure(error)));
      stream.on('close', () => {
        if (stream.rstCode) fail(phase, `the server reset the stream (HTTP/2 error ${stream.rstCode})`);
        else if (phase === 'first_byte') fail(phase, 'the stream closed without a response');
      });
    };

    const socket = net.connect({ host: address, port: target.port, noDelay: true });
    socket.on('error', (error: NodeJS.ErrnoException) => fail(phase, socketFailure(error)));
    socket.once('connect', () => {
      marks.connected = clock();
      if (!target.secure) {
        // first_byte runs from here: building the request is part of waiting for the answer.
        marks.sent = marks.connected;
        phase = 'first_byte';
        requestHttp1(socket);
        return;
      }
      phase = 'tls';
      const connection = tls.connect({
        socket,
        // No SNI for an address (RFC 6066); Node warns when given one.
        ...(net.isIP(target.host) === 0 ? { servername: target.host } : {}),
        ALPNProtocols: ['h2', 'http/1.1'],
        // The certificate is reported whatever it is (`valid`), as /ssl does; nothing secret is sent.
        rejectUnauthorized: false,
        ...(options.ca ? { ca: [...options.ca] } : {}),
      });
      secure = connection;
      connection.on('error', (error: NodeJS.ErrnoException) => fail(phase, socketFailure(error)));
      connection.on('close', () => {
        if (phase === 'tls') fail('tls', 'the server closed the connection during the TLS handshake');
      });
      connection.once('secureConnect', () => {
        marks.secured = clock();
        marks.sent = marks.secured;
        phase = 'first_byte';
        const certificate = connection.getPeerX509Certificate() ?? null;
        peer = {
          certificate,
          chain: certificate ? sentChain(certificate) : [],
          authorized: connection.authorized,
          authorizationError: authorizationErrorCode(connection),
          protocol: connection.getProtocol(),
          cipher: connection.getCipher()?.name ?? null,
        };
        if (connection.alpnProtocol === 'h2') requestHttp2(connection);
        else requestHttp1(connection);
      });
    });
    socket.on('close', () => {
      if (phase === 'tcp') fail('tcp', 'the connection closed before it was established');
    });
  });
}
