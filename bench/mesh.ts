// `npm run bench:mesh [-- latency load]`: measurements across nodes sharing one Redis on loopback,
// each beside the same probes on the single-node route, in the same run.
//   latency: from sending POST /api/v1/measurements to node A (a probe on node B) until that probe's
//            first event reaches the client through A's events stream, against sending the same
//            probe's GET to B's own route until its first event; rounds interleaved.
//   load:    100 measurements at once x 3 nodes (300 probes), every event read and counted: server
//            CPU per probe event and Redis commands per probe, against the same 300 probes as
//            single-node requests.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { startRedis } from '../test/support/redis-server.ts';
import { type ServiceProcess, startServiceProcess } from '../test/support/service-process.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const CONCURRENT = Number(process.env.BENCH_MEASUREMENTS ?? 100);
const wanted = process.argv.slice(2);
const run = (name: string) => wanted.length === 0 || wanted.includes(name);

const redis = await startRedis();
const nodeEnv = (name: string) => ({
  REDIS_URL: redis.url,
  MESH_SECRET: 'the-bench-mesh-secret-0123456789abcdef',
  NODE_NAME: name,
  ALLOW_PRIVATE_TARGETS: 'true',
  RATE_LIMITS: 'public=1000000000/1000000000',
  MEASUREMENT_LIMITS: 'public=10',
  STREAM_MAX_CONCURRENT: '10000',
  STREAM_MAX_PER_CLIENT: '10000',
  DATA_DIR: '.tmp/bench-data',
});
const nodes: ServiceProcess[] = [];
const listener = createServer((socket) => socket.destroy());
listener.listen(0, '127.0.0.1');
await once(listener, 'listening');
const openPort = (listener.address() as AddressInfo).port;

/** Reads an SSE response: calls `onEvent` for each message as it arrives; resolves at the end. */
async function readEvents(
  response: Response,
  onEvent: (event: { type: string; node?: string }, id: string) => boolean | undefined,
) {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const [idLine = '', dataLine = ''] = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      if (onEvent(JSON.parse(dataLine.slice(6)), idLine.slice(4)) === true) {
        await reader.cancel();
        return;
      }
    }
  }
}

async function post(node: ServiceProcess, body: object): Promise<{ id: string }> {
  const response = await fetch(`${node.url}/api/v1/measurements`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`POST: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const row = (values: number[]) => ({
  p50: quantile(values, 0.5).toFixed(1),
  p90: quantile(values, 0.9).toFixed(1),
  p99: quantile(values, 0.99).toFixed(1),
  max: Math.max(...values).toFixed(1),
});

async function latency() {
  const [a, b] = nodes as [ServiceProcess, ServiceProcess];
  const probes = {
    'TCP ping': {
      query: `host=127.0.0.1&protocol=tcp&port=${openPort}&count=1`,
      options: { protocol: 'tcp', port: openPort, count: 1 },
    },
    'ICMP ping': { query: 'host=127.0.0.1&count=1', options: { count: 1 } },
  };
  for (const [name, probe] of Object.entries(probes)) {
    const single: number[] = [];
    const mesh: number[] = [];
    // Rounds for the first 5 s warm both paths up: fresh nodes pause 60-140 ms now and then in their
    // first seconds of traffic (compilation, incremental marking), which 10 rounds did not cover.
    const warmUntil = performance.now() + 5000;
    while (single.length < ROUNDS) {
      let started = performance.now();
      const response = await fetch(`${b.url}/api/v1/ping?${probe.query}`);
      let first = 0;
      await readEvents(response, () => {
        first = performance.now() - started;
        return true;
      });
      started = performance.now();
      const { id } = await post(a, {
        type: 'ping',
        target: '127.0.0.1',
        options: probe.options,
        locations: [{ node: 'b' }],
      });
      let meshFirst = 0;
      await readEvents(await fetch(`${a.url}/api/v1/measurements/${id}/events`), () => {
        meshFirst = performance.now() - started;
        return true;
      });
      if (performance.now() < warmUntil) continue;
      single.push(first);
      mesh.push(meshFirst);
    }
    console.log(`\n${name} to 127.0.0.1, ${ROUNDS} rounds interleaved: ms to the probe's first event`);
    console.table({ 'single-node route (GET on B)': row(single), 'mesh (POST to A, probe on B)': row(mesh) });
    const gap = quantile(mesh, 0.99) - quantile(single, 0.99);
    console.log(`p99 difference ${gap.toFixed(1)} ms (target: within 20 ms): ${gap <= 20 ? 'met' : 'NOT met'}`);
  }
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function commandCounts(client: Redis): Promise<Map<string, number>> {
  const text = await client.info('commandstats');
  return new Map([...text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1] as string, Number(m[2])]));
}

async function measured(client: Redis, work: () => Promise<number>) {
  const pids = nodes.map((node) => node.child.pid as number);
  const cpuBefore = pids.map(cpuSeconds);
  const commandsBefore = await commandCounts(client);
  const started = performance.now();
  const events = await work();
  const wallMs = performance.now() - started;
  const cpu = pids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - (cpuBefore[i] ?? 0), 0);
  const after = await commandCounts(client);
  const byCommand = [...after].map(([name, calls]) => [name, calls - (commandsBefore.get(name) ?? 0)] as const);
  // The counting itself: INFO's own call is not the work's.
  const commands = byCommand.filter(([name]) => name !== 'info').reduce((sum, [, calls]) => sum + calls, 0);
  return { events, wallMs, cpu, commands, byCommand: byCommand.filter(([, calls]) => calls > 0) };
}

async function load() {
  const client = new Redis(redis.url);
  const probes = CONCURRENT * nodes.length;
  const options = { protocol: 'tcp', port: 9, count: 2 };
  const mesh = await measured(client, async () => {
    const created = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        post(nodes[i % nodes.length] as ServiceProcess, {
          type: 'ping',
          target: '127.0.0.1',
          options,
          locations: [{ limit: 3 }],
        }),
      ),
    );
    const counts = await Promise.all(
      created.map(async ({ id }, i) => {
        const seen = new Set<string>();
        let probeEvents = 0;
        const node = nodes[(i + 1) % nodes.length] as ServiceProcess;
        await readEvents(await fetch(`${node.url}/api/v1/measurements/${id}/events`), (event, eventId) => {
          if (seen.has(eventId)) throw new Error(`event ${eventId} of ${id} came twice`);
          seen.add(eventId);
          if (event.type !== 'measurement_done') probeEvents++;
        });
        if (probeEvents !== 12) throw new Error(`measurement ${id}: ${probeEvents} probe events, not 12`);
        return probeEvents;
      }),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  });
  const single = await measured(client, async () => {
    const counts = await Promise.all(
      Array.from({ length: probes }, async (_, i) => {
        const node = nodes[i % nodes.length] as ServiceProcess;
        let events = 0;
        await readEvents(await fetch(`${node.url}/api/v1/ping?host=127.0.0.1&protocol=tcp&port=9&count=2`), () => {
          events++;
        });
        if (events !== 4) throw new Error(`a single-node stream gave ${events} events, not 4`);
        return events;
      }),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  });
  client.disconnect();
  console.log(
    `\n${CONCURRENT} measurements at once x ${nodes.length} nodes (${probes} TCP pings, count 2), against the same ${probes} probes as single-node requests`,
  );
  const line = (result: typeof mesh) => ({
    'probe events': result.events,
    'wall s': (result.wallMs / 1000).toFixed(2),
    'server CPU ms': (result.cpu * 1000).toFixed(0),
    'CPU µs per event': ((result.cpu * 1e6) / result.events).toFixed(0),
    'Redis commands per probe': (result.commands / probes).toFixed(1),
  });
  console.table({ 'single-node routes': line(single), measurements: line(mesh) });
  console.log('Redis commands of the measurements, by command (all probes):');
  console.table(
    Object.fromEntries(
      mesh.byCommand.map(([name, calls]) => [name, { calls, 'per probe': (calls / probes).toFixed(2) }]),
    ),
  );
  console.log('every event counted once: none lost (12 per measurement), none twice (ids checked)');
}

try {
  for (const name of ['a', 'b', 'c']) nodes.push(await startServiceProcess(nodeEnv(name)));
  // Every node has announced itself (a heartbeat) before the first measurement.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  if (run('latency')) await latency();
  if (run('load')) await load();
} finally {
  for (const node of nodes) await node.stop();
  listener.close();
  await redis.stop();
}
