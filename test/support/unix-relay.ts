// Joins a TCP port on this network namespace's loopback to a Unix socket (the file system is shared
// by every namespace): how the mesh tests' nodes in namespaces reach the one Redis on the host's
// loopback. Prints one line once it listens.
//   ip netns exec NS node test/support/unix-relay.ts PORT SOCKET
import { connect, createServer } from 'node:net';

const [port, socketPath] = process.argv.slice(2);
if (!port || !socketPath) throw new Error('usage: unix-relay.ts PORT SOCKET');
const server = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream).pipe(client);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end);
  upstream.on('error', end);
  client.on('close', end);
  upstream.on('close', end);
});
server.listen(Number(port), '127.0.0.1', () => console.log(`relaying http://127.0.0.1:${port} to ${socketPath}`));
