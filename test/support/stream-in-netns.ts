// Runs one stream of the real app where this process runs (a test starts it with `ip netns exec NS`,
// so that probes the service makes itself, such as TCP ping's connects, leave from inside the test
// network), and prints its events as one JSON array on stdout.
//   node test/support/stream-in-netns.ts '/api/v1/ping?host=203.0.113.200&protocol=tcp'
import type { AddressInfo } from 'node:net';
import { buildTestApp } from './app.ts';
import { openStream } from './sse-client.ts';

const path = process.argv[2];
if (!path?.startsWith('/')) throw new Error('usage: stream-in-netns.ts /api/v1/...');
const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' });
await app.listen({ host: '127.0.0.1', port: 0 });
const stream = await openStream(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}${path}`);
const events = (await stream.done).map((entry) => ({ ...entry.event, at_ms: Math.round(entry.at) }));
await app.close();
process.stdout.write(`${JSON.stringify({ status: stream.status, events })}\n`);
