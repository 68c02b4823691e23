// A worker thread for supervisor.test.ts: reads a file through its link to the supervisor and
// answers the test's questions about the bytes it got.
import { parentPort } from 'node:worker_threads';
import { workerLink } from '../../src/workers/link.ts';

const link = workerLink();
if (link === null) throw new Error('not started as a netinfo worker');
const bytes = await link.readBytes(process.env.SHARED_FILE as string);
link.onReload(() => {
  // Asked to mark the bytes: the other worker must then see the mark in its own copy.
  if (bytes[0] === 0) bytes[0] = 42;
  parentPort?.postMessage({ type: 'listening', port: bytes[0] as number });
});
link.onClose(() => process.exit(0));
link.listening(bytes[0] as number);
