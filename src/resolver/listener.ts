import { createSocket } from 'node:dgram';
import { type EventEmitter, once } from 'node:events';
import { createServer as createTcpServer, isIPv6, type Socket as TcpSocket } from 'node:net';
import { normaliseIp } from '../net/ip-address.ts';

/** Answers one query from `peer` (null: send nothing). */
export type QueryHandler = (query: Buffer, peer: string, tcp: boolean) => Buffer | null;

export interface DnsListener {
  close(): Promise<void>;
}

/** A resolver that opens a TCP connection and sends nothing holds a socket; this bounds how long. */
const TCP_IDLE_MS = 10_000;
const MAX_TCP_CONNECTIONS = 256;

/**
 * UDP and TCP on the same address and port; `::` takes IPv4 too (dual-stack). `shared`: each worker
 * thread (WORKERS > 1) opens its own sockets on the port (SO_REUSEPORT), the kernel spreads the queries.
 */
export async function startDnsListener(
  host: string,
  port: number,
  handle: QueryHandler,
  shared = false,
): Promise<DnsListener> {
  const udp = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', ipv6Only: false, reusePort: shared });
  udp.on('message', (query, peer) => {
    const response = safely(handle, query, peer.address, false);
    if (response !== null) udp.send(response, peer.port, peer.address);
  });
  // A send to an unreachable peer reports here; the listener goes on.
  udp.on('error', () => {});
  udp.bind(port, host);
  await listening(udp, () => udp.close());

  const connections = new Set<TcpSocket>();
  const tcp = createTcpServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serveTcp(socket, handle);
  });
  tcp.maxConnections = MAX_TCP_CONNECTIONS;
  tcp.listen({ port, host, reusePort: shared });
  await listening(tcp, () => udp.close());
  return {
    async close() {
      const tcpClosed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const socket of connections) socket.destroy();
      udp.close();
      await tcpClosed;
    },
  };
}

/** Waits until `socket` listens; when it cannot (a taken port), `undo` closes what is open, and the error is thrown. */
async function listening(socket: EventEmitter, undo: () => void): Promise<void> {
  try {
    await once(socket, 'listening');
  } catch (error) {
    undo();
    throw error;
  }
}

function serveTcp(socket: TcpSocket, handle: QueryHandler): void {
  const peer = socket.remoteAddress ?? '';
  let pending = Buffer.alloc(0);
  socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    // Each message is preceded by its length in two bytes (RFC 1035 §4.2.2); several may share a connection.
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      const query = pending.subarray(2, 2 + pending.readUInt16BE(0));
      pending = pending.subarray(2 + query.length);
      const response = safely(handle, query, peer, true);
      if (response === null) {
        socket.destroy();
        return;
      }
      const length = Buffer.alloc(2);
      length.writeUInt16BE(response.length);
      socket.write(Buffer.concat([length, response]));
    }
  });
}

/** A packet that breaks the answering code is dropped, never the listener. */
function safely(handle: QueryHandler, query: Buffer, address: string, tcp: boolean): Buffer | null {
  try {
    return handle(query, normaliseIp(address) ?? address, tcp);
  } catch {
    return null;
  }
}
