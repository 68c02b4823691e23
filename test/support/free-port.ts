import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 free at the moment of asking, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  return port;
}
