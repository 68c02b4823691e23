// The real app for the stream benchmarks, configured from the environment like src/server.ts.
// With BENCH_FAKE_PING set, `ping` is that Perl script (bench/fake-ping.pl: timestamped lines),
// started as a real child process the way the service starts its tools (its spawn helper);
// traceroute stays real. BENCH_FAKE_MTR does the same for `mtr` (bench/fake-mtr.pl). BENCH_SPAWN=direct spawns from the server process itself instead, to
// compare with what the helper saves.
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createHelperSpawner } from '../src/probes/spawn/spawn-helper.ts';
import { type Spawner, spawnTool } from '../src/probes/spawn/spawner.ts';

const fakePing = process.env.BENCH_FAKE_PING;
const fakeMtr = process.env.BENCH_FAKE_MTR;
const helper = createHelperSpawner();
const base: Spawner = process.env.BENCH_SPAWN === 'direct' ? spawnTool : helper.spawner;
const spawner: Spawner = (command, args) => {
  if (fakePing && command === 'ping') return base('perl', [fakePing, ...args]);
  if (fakeMtr && command === 'mtr') return base('perl', [fakeMtr, ...args]);
  return base(command, args);
};

const app = await buildApp(loadConfig(), { spawner });
app.addHook('onClose', () => helper.close());
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
process.on('SIGTERM', async () => {
  await app.close();
  process.exit(0);
});
