import { once } from 'node:events';
import { type AddressInfo, createServer, type Server } from 'node:net';

/** Counts the connections a listener gets: what proves a probe ran, or that nothing reached it. */
export async function countingListener(
  host: string,
): Promise<{ server: Server; port: number; connects: () => number }> {
  let connects = 0;
  const server = createServer((socket) => {
    connects++;
    socket.destroy();
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, connects: () => connects };
}
