import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { buildTestApp } from '../support/app.ts';
import { type ListeningProcess, startListeningProcess } from '../support/listening-process.ts';

// The caller on a host of its own: a network namespace joined to this one by a veth pair on a /30
// taken from this process's id (10.213.x.y/30), so that runs at the same time never share one. The
// service listens on the host side (.1); curl and the caller's listener run in the namespace (.2),
// so the service's clientIp is the namespace's address and its connect goes into the namespace.
// There the replies from port 7 are routed into a blackhole: SYNs to it go unanswered.

const ns = `niport${process.pid}`;
const slot = process.pid % 16384;
const [third, fourth] = [slot >> 6, (slot & 63) * 4];
const subnet = `10.213.${third}.${fourth}`;
const hostSide = `10.213.${third}.${fourth + 1}`;
const callerSide = `10.213.${third}.${fourth + 2}`;
const SILENT_PORT = 7;
const CLOSED_PORT = 9;

/** Namespaces left by runs of this file that were killed before their teardown. */
function removeStaleNamespaces() {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const [name, pid] of listed.matchAll(/^niport(\d+)\b/gm)) {
    try {
      process.kill(Number(pid), 0);
    } catch {
      spawnSync('ip', ['netns', 'del', name]);
    }
  }
}

function unavailable(): string | false {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  for (const tool of ['ip', 'curl']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  removeStaleNamespaces();
  if (spawnSync('ip', ['netns', 'add', ns]).status !== 0) return 'cannot create network namespaces here';
  // Deleting the namespace deletes the veth pair with it, even if the run is interrupted.
  process.once('exit', () => spawnSync('ip', ['netns', 'del', ns]));
  return false;
}

const skip = unavailable();
if (skip) console.log(`# port check netns tests skipped: ${skip}`);

function ip(...args: string[]) {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  assert.equal(result.status, 0, `ip ${args.join(' ')}: ${result.stderr}`);
}

let app: Awaited<ReturnType<typeof buildTestApp>> | undefined;
let origin = '';
let listener: ListeningProcess | undefined;
let listenerPort = 0;

before(async () => {
  if (skip) return;
  ip('link', 'add', `${ns}h`, 'type', 'veth', 'peer', 'name', `${ns}c`, 'netns', ns);
  ip('addr', 'add', `${hostSide}/30`, 'dev', `${ns}h`);
  ip('link', 'set', `${ns}h`, 'up');
  ip('-n', ns, 'addr', 'add', `${callerSide}/30`, 'dev', `${ns}c`);
  ip('-n', ns, 'link', 'set', `${ns}c`, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  ip('-n', ns, 'rule', 'add', 'ipproto', 'tcp', 'sport', String(SILENT_PORT), 'table', '213');
  ip('-n', ns, 'route', 'add', 'blackhole', 'default', 'table', '213');
  app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: `${subnet}/30`, PORT_CHECK_MAX_IN_FLIGHT_PER_CLIENT: '1' });
  await app.listen({ host: hostSide, port: 0 });
  origin = `http://${hostSide}:${(app.server.address() as AddressInfo).port}`;
  listener = await startListeningProcess(
    'ip',
    ['netns', 'exec', ns, process.execPath, 'test/port/listener-in-netns.ts', callerSide],
    {},
  );
  listenerPort = Number(new URL(listener.url).port);
});

after(async () => {
  listener?.child.kill();
  await app?.close();
  if (!skip) spawnSync('ip', ['netns', 'del', ns]);
});

const execFileAsync = promisify(execFile);

/** curl in the namespace: the status, the headers (names in lower case), the body's exact bytes, and how long it took. */
async function fromCaller(path: string) {
  const started = performance.now();
  const { stdout } = await execFileAsync('ip', [
    'netns',
    'exec',
    ns,
    'curl',
    '-sS',
    '-i',
    '--max-time',
    '10',
    `${origin}${path}`,
  ]);
  const ms = performance.now() - started;
  const end = stdout.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = stdout.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: stdout.slice(end + 4), ms };
}

/** The connections the caller's listener has seen close, once `count` have. */
async function listenerConnections(count: number): Promise<string[]> {
  for (let waited = 0; ; waited += 50) {
    const seen = (listener?.output() ?? '').split('\n').filter((line) => line.startsWith('connection'));
    if (seen.length >= count || waited > 2000) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const notReached = (port: number, reason: string) => ({
  ip: callerSide,
  port,
  reachable: false,
  time_ms: null,
  reason,
});

const echoipBody = (port: number, reachable: boolean) =>
  `{\n  "ip": "${callerSide}",\n  "port": ${port},\n  "reachable": ${reachable}\n}`;

test('a port the caller listens on: reachable with its connect time; the listener saw the service connect and send nothing', {
  skip,
}, async () => {
  const api = await fromCaller(`/api/v1/port/${listenerPort}`);
  assert.equal(api.status, 200);
  const answer = JSON.parse(api.body);
  assert.deepEqual(
    { ...answer, time_ms: 0 },
    { ip: callerSide, port: listenerPort, reachable: true, time_ms: 0, reason: null },
  );
  assert.ok(answer.time_ms > 0 && answer.time_ms < 1000, `time_ms ${answer.time_ms}`);
  assert.match(String(answer.time_ms), /^\d+(\.\d{1,3})?$/, 'at most 3 decimals');

  const text = await fromCaller(`/port/${listenerPort}`);
  assert.equal(text.status, 200);
  assert.equal(text.headers['content-type'], 'application/json');
  assert.equal(text.body, echoipBody(listenerPort, true));
  assert.deepEqual(await listenerConnections(2), [
    `connection from ${hostSide} bytes 0`,
    `connection from ${hostSide} bytes 0`,
  ]);
});

test('a closed port of the caller: refused, on both paths', { skip }, async () => {
  const api = await fromCaller(`/api/v1/port/${CLOSED_PORT}`);
  assert.deepEqual(JSON.parse(api.body), notReached(CLOSED_PORT, 'refused'));
  const text = await fromCaller(`/port/${CLOSED_PORT}`);
  assert.equal(text.body, echoipBody(CLOSED_PORT, false));
});

test('a port whose SYNs go unanswered: timeout after 2 s; meanwhile another check of the caller is the in-flight cap 429', {
  skip,
}, async () => {
  const pending = fromCaller(`/api/v1/port/${SILENT_PORT}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const refused = await fromCaller(`/port/${CLOSED_PORT}`);
  assert.equal(refused.status, 429);
  assert.match(JSON.parse(refused.body).error, /^Too many \/port checks at once: you already have 1 running/);

  const silent = await pending;
  assert.ok(silent.ms > 1900 && silent.ms < 3000, `answered after ${silent.ms.toFixed(0)} ms`);
  assert.deepEqual(JSON.parse(silent.body), notReached(SILENT_PORT, 'timeout'));
  const text = await fromCaller(`/port/${SILENT_PORT}`);
  assert.equal(text.body, echoipBody(SILENT_PORT, false));
  assert.ok(text.ms > 1900 && text.ms < 3000, `answered after ${text.ms.toFixed(0)} ms`);
});
