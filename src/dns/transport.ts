import dgram from 'node:dgram';
import net from 'node:net';
import type { DnsErrorCode } from './errors.ts';
import type { DnsServer } from './servers.ts';

/**
 * Decides what to do with a received message: a value to finish with, or undefined to ignore it
 * (over UDP: keep waiting; over TCP, where the stream comes from the server, it is a bad answer).
 */
export type AcceptMessage<T> = (bytes: Buffer) => T | undefined;

export type ExchangeRequest<T> = { server: DnsServer; query: Buffer; timeoutMs: number; accept: AcceptMessage<T> };

export type ExchangeOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; code: Extract<DnsErrorCode, 'TIMEOUT' | 'UNREACHABLE' | 'BADRESPONSE'>; detail: string };

/** The sockets: replaced in tests only where a real loopback socket cannot show the case. */
export type DnsTransport = {
  udp<T>(request: ExchangeRequest<T>): Promise<ExchangeOutcome<T>>;
  tcp<T>(request: ExchangeRequest<T>): Promise<ExchangeOutcome<T>>;
};

export type SocketTransportOptions = {
  /** TCP answers longer than this are refused; 65535 is the most the 2-byte length can say. */
  maxTcpResponseBytes?: number;
};

export function createSocketTransport(options: SocketTransportOptions = {}): DnsTransport {
  const maxTcpResponseBytes = options.maxTcpResponseBytes ?? 65535;
  return {
    udp: (request) => exchangeOverUdp(request),
    tcp: (request) => exchangeOverTcp(request, maxTcpResponseBytes),
  };
}

/**
 * One query over a fresh UDP socket, so the OS picks a random source port for each query. The
 * socket is connected to the server: the kernel then drops datagrams from other addresses and
 * ports and reports ICMP port unreachable as ECONNREFUSED; the source check below repeats the
 * first for safety.
 */
function exchangeOverUdp<T>({ server, query, timeoutMs, accept }: ExchangeRequest<T>): Promise<ExchangeOutcome<T>> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (outcome: ExchangeOutcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(outcome);
    };
    // Replies from the server that were not an answer to this query (undecodable, another id or
    // question) are ignored, as a resolver must; but if nothing else came, the server did answer,
    // and saying "no answer in time" would send the operator looking at the network.
    let ignored = 0;
    const timer = setTimeout(
      () =>
        finish(
          ignored === 0
            ? { ok: false, code: 'TIMEOUT', detail: `no answer in ${timeoutMs} ms` }
            : {
                ok: false,
                code: 'BADRESPONSE',
                detail: `${ignored} ${ignored === 1 ? 'reply' : 'replies'} in ${timeoutMs} ms, none a valid answer to the query (undecodable, or another id or question)`,
              },
        ),
      timeoutMs,
    );
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const refused = error.code === 'ECONNREFUSED';
      finish({ ok: false, code: 'UNREACHABLE', detail: refused ? 'port unreachable' : error.message });
    });
    socket.on('message', (message, remote) => {
      if (remote.address !== server.host || remote.port !== server.port) return;
      const value = accept(message);
      if (value !== undefined) finish({ ok: true, value });
      else ignored++;
    });
    socket.connect(server.port, server.host, () => {
      socket.send(query, (error) => {
        if (error) finish({ ok: false, code: 'UNREACHABLE', detail: error.message });
      });
    });
  });
}

/** One query over a fresh TCP connection, framed with the 2-byte length of RFC 1035 §4.2.2. */
function exchangeOverTcp<T>(
  { server, query, timeoutMs, accept }: ExchangeRequest<T>,
  maxResponseBytes: number,
): Promise<ExchangeOutcome<T>> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let settled = false;
    let connected = false;
    let received = Buffer.alloc(0);
    const finish = (outcome: ExchangeOutcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ ok: false, code: 'TIMEOUT', detail: `no answer over TCP in ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.on('connect', () => {
      connected = true;
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const length = received.readUInt16BE(0);
      if (length > maxResponseBytes) {
        finish({ ok: false, code: 'BADRESPONSE', detail: `TCP answer of ${length} bytes exceeds ${maxResponseBytes}` });
        return;
      }
      if (received.length < 2 + length) return;
      const value = accept(received.subarray(2, 2 + length));
      finish(
        value === undefined
          ? { ok: false, code: 'BADRESPONSE', detail: 'TCP answer does not match the question' }
          : { ok: true, value },
      );
    });
    socket.on('end', () =>
      finish({ ok: false, code: 'BADRESPONSE', detail: 'TCP connection closed before the answer' }),
    );
    socket.on('error', (error) => {
      finish({ ok: false, code: connected ? 'BADRESPONSE' : 'UNREACHABLE', detail: error.message });
    });
  });
}
