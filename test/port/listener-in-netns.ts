// Stands for the caller's own server inside the test's network namespace (started with `ip netns
// exec`): listens on the namespace's address given, prints its URL, then one line per connection
// it accepted with the bytes it received once it closes.
//   node test/port/listener-in-netns.ts 10.213.0.2
import { type AddressInfo, createServer } from 'node:net';

const host = process.argv[2] ?? '';
const server = createServer((socket) => {
  const peer = socket.remoteAddress;
  let bytes = 0;
  socket.on('data', (data) => {
    bytes += data.length;
  });
  socket.on('error', () => {});
  socket.on('close', () => process.stdout.write(`connection from ${peer} bytes ${bytes}\n`));
});
server.listen(0, host, () => process.stdout.write(`http://${host}:${(server.address() as AddressInfo).port}\n`));
