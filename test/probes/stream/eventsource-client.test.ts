// Issue 28, item 1: the standard EventSource client, left open after `done` or `error` as a page
// that forgets close() leaves it, reconnected when the stream ended and ran the probe again (a
// traceroute 20 times in 60 s). Every event now carries an id, and a reconnect naming it is
// answered 204, which makes EventSource stop: one run, then silence.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { buildTestApp } from '../../support/app.ts';
import { capturedExitCode, loadCapturedOutputs } from '../../support/captured-output.ts';
import { createFakeSpawner, type FakeChild, pingOnce, replayInHalfLines } from '../../support/fake-spawner.ts';

/** The captured run of a tool on loopback, replayed by the fake child. */
function replay(tool: string) {
  const capture = loadCapturedOutputs(tool).find((entry) => entry.scenario === 'ipv4-loopback');
  assert.ok(capture, `${tool} fixture`);
  return replayInHalfLines(capture, capturedExitCode(tool, 'ipv4-loopback'));
}
const traceroute = replay('traceroute');
const mtr = replay('mtr');

/** ping to 127.0.0.9 fails (the stream ends with `error`), any other tool replays its capture. */
function script(child: FakeChild) {
  if (child.command === 'traceroute') return traceroute(child);
  if (child.command === 'mtr') return mtr(child);
  if (child.args.at(-1) === '127.0.0.9') {
    child.stderr('ping: connect: Network is unreachable\n');
    child.exit(2);
    return;
  }
  pingOnce(child);
}

interface Exchange {
  status: number;
  lastEventId: string | null;
  remaining: string | null;
}

/**
 * Opens `url` with EventSource as a careless page does (never calling close()), from its own
 * address (X-Forwarded-For, trusted from loopback), recording every HTTP exchange it makes.
 */
function carelessClient(url: string, ip: string) {
  const exchanges: Exchange[] = [];
  const events: { id: string; type: string }[] = [];
  let stopped = false;
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-forwarded-for', ip);
      const response = await fetch(input, { ...init, headers });
      exchanges.push({
        status: response.status,
        lastEventId: headers.get('last-event-id'),
        remaining: response.headers.get('x-ratelimit-remaining'),
      });
      return response;
    },
  });
  source.onmessage = (message) => events.push({ id: message.lastEventId, type: JSON.parse(message.data).type });
  source.onerror = (error) => {
    if (error.code === 204) stopped = true;
  };
  return { source, exchanges, events, stopped: () => stopped };
}

test('EventSource left open after done or error: one run, then a 204 that costs nothing and silence', async (t) => {
  const tcpTarget = createServer((socket) => socket.destroy());
  let tcpConnects = 0;
  tcpTarget.on('connection', () => tcpConnects++);
  await new Promise<void>((resolve) => tcpTarget.listen(0, '127.0.0.1', resolve));
  const fake = createFakeSpawner(script);
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true', TRUST_PROXY: 'loopback' }, { spawner: fake.spawner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => {
    await app.close();
    tcpTarget.close();
  });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const cases = [
    { path: '/ping?host=127.0.0.1&count=1', last: 'done', runs: () => fake.children.filter(isPing).length },
    { path: '/ping?host=127.0.0.9&count=1', last: 'error', runs: () => fake.children.filter(isFailingPing).length },
    {
      path: `/ping?host=127.0.0.1&count=1&protocol=tcp&port=${(tcpTarget.address() as AddressInfo).port}`,
      last: 'done',
      runs: () => tcpConnects,
    },
    { path: '/traceroute?host=127.0.0.1', last: 'done', runs: () => count('traceroute') },
    { path: '/mtr?host=127.0.0.1&count=3', last: 'done', runs: () => count('mtr') },
  ];
  const clients = cases.map((entry, index) => carelessClient(`${base}${entry.path}`, `192.0.2.${index + 1}`));
  try {
    // EventSource reconnects 3 s after a stream ends: 6 s after the last event covers it twice over.
    const until = Date.now() + 20_000;
    while (clients.some((client) => client.events.at(-1)?.type !== 'done' && client.events.at(-1)?.type !== 'error')) {
      assert.ok(Date.now() < until, 'every stream ends');
      await sleep(50);
    }
    await sleep(6000);
    for (const [index, entry] of cases.entries()) {
      const client = clients[index] as ReturnType<typeof carelessClient>;
      assert.equal(client.events.at(-1)?.type, entry.last, entry.path);
      assert.equal(entry.runs(), 1, `${entry.path}: the probe ran once`);
      const lastId = client.events.at(-1)?.id;
      assert.match(lastId ?? '', /^netinfo\.[0-9a-f]{16}\.\d+$/, entry.path);
      assert.deepEqual(
        client.exchanges,
        [
          { status: 200, lastEventId: null, remaining: '99' },
          { status: 204, lastEventId: lastId, remaining: null },
        ],
        entry.path,
      );
      assert.ok(client.stopped(), `${entry.path}: EventSource was told to stop`);
      assert.equal(client.source.readyState, EventSource.CLOSED, entry.path);
      // The reconnect cost nothing: the caller's next request is its second.
      const next = await app.inject({
        url: '/api/v1/ping?host=-f',
        headers: { 'x-forwarded-for': `192.0.2.${index + 1}` },
      });
      assert.equal(next.headers['x-ratelimit-remaining'], '98', entry.path);
    }
  } finally {
    for (const client of clients) client.source.close();
  }

  function isPing(child: FakeChild) {
    return child.command === 'ping' && child.args.at(-1) === '127.0.0.1';
  }
  function isFailingPing(child: FakeChild) {
    return child.command === 'ping' && child.args.at(-1) === '127.0.0.9';
  }
  function count(command: string) {
    return fake.children.filter((child) => child.command === command).length;
  }
});

test('Last-Event-ID of one of our streams: 204 before the rate limits and the caps, nothing run; any other id is ignored', async (t) => {
  // Children run until the test ends them: the first stream holds the caller's only slot.
  const fake = createFakeSpawner();
  const app = await buildTestApp(
    { ALLOW_PRIVATE_TARGETS: 'true', STREAM_MAX_PER_CLIENT: '1', STREAM_MAX_CONCURRENT: '1' },
    { spawner: fake.spawner },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Registered first, so a failed assertion below still ends the held stream and the server.
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  t.after(async () => {
    await reader?.cancel();
    await app.close();
  });
  const held = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ping?host=127.0.0.1`);
  assert.equal(held.status, 200);
  assert.equal(held.headers.get('x-ratelimit-remaining'), '99');
  reader = held.body?.getReader();
  const first = new TextDecoder().decode((await reader?.read())?.value);
  const [, lastId] = /^id: (\S+)\n/.exec(first) ?? [];
  assert.match(lastId ?? '', /^netinfo\.[0-9a-f]{16}\.1$/);

  // Another instance's id is recognised as well: the form alone says it is ours.
  for (const id of [lastId as string, 'netinfo.0123456789abcdef.42']) {
    for (const path of [
      '/api/v1/ping?host=127.0.0.1',
      '/api/v1/traceroute?host=127.0.0.1',
      '/api/v1/mtr?host=127.0.0.1',
    ]) {
      const response = await app.inject({
        url: path,
        headers: { 'last-event-id': id, origin: 'https://site.example' },
      });
      assert.equal(response.statusCode, 204, `${path} ${id}`);
      assert.equal(response.body, '');
      assert.equal(response.headers['x-ratelimit-remaining'], undefined, 'not counted');
      assert.equal(response.headers['access-control-allow-origin'], '*', 'a cross-origin page may read it');
    }
  }
  assert.equal(fake.children.length, 1, 'nothing else ran');
  // Still full: the 204s took no slot, and the count moved by one (this request) only.
  const full = await app.inject({ url: '/api/v1/ping?host=127.0.0.1' });
  assert.equal(full.statusCode, 429);
  assert.equal(full.headers['x-ratelimit-remaining'], '98');
  assert.equal(fake.children.length, 1);

  // Not ours (another service's, or a mangled one): an ordinary request, counted (here refused by the cap).
  for (const id of ['42', 'netinfo.0123456789ABCDEF.1', 'netinfo.0123456789abcdef.0', `${lastId}, ${lastId}`]) {
    const response = await app.inject({ url: '/api/v1/ping?host=127.0.0.1', headers: { 'last-event-id': id } });
    assert.equal(response.statusCode, 429, id);
    assert.ok(response.headers['x-ratelimit-remaining'] !== undefined, id);
  }
  // Other routes ignore the header.
  assert.equal(
    (await app.inject({ url: '/api/v1/ipv6', headers: { 'last-event-id': lastId as string } })).statusCode,
    200,
  );
});

test('the EventSource examples of the README and the dashboard close their stream once it ends: no reconnect at all', async (t) => {
  const fake = createFakeSpawner(script);
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const dashboard = readFileSync(new URL('../../../src/web/dashboard-page.ts', import.meta.url), 'utf8');
  const examples = {
    README: /```js\n( *const stream = new EventSource[\s\S]*?) *```/.exec(readme)?.[1],
    dashboard: /<pre class="hint example"><code>([\s\S]*?)<\/code><\/pre>/
      .exec(dashboard)?.[1]
      ?.replace(/\$\{e\(view\.origin\)\}/, '')
      .replace(/<span class="key-example">[^<]*<\/span>/, 'nk_...')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&'),
  };
  for (const [where, example] of Object.entries(examples)) {
    assert.ok(example, `${where} has the example`);
    for (const host of ['127.0.0.1', '127.0.0.9']) {
      const requests: string[] = [];
      let opened: EventSource | undefined;
      // The example as written, against this server: its host asked for, its key left out (the
      // placeholder would be a 401), and every request it makes recorded.
      class RecordingEventSource extends EventSource {
        constructor(url: string) {
          const absolute = `${base}${url.replace('example.com', host).replace(/&api_key=[^&]*/, '')}`;
          super(absolute, {
            fetch: (input, init) => {
              requests.push(String(input));
              return fetch(input, init);
            },
          });
          opened = this;
        }
      }
      new Function('EventSource', example)(RecordingEventSource);
      const until = Date.now() + 10_000;
      while (opened?.readyState !== EventSource.CLOSED) {
        assert.ok(Date.now() < until, `${where}, ${host}: the example closes its stream`);
        await sleep(20);
      }
      // Past EventSource's 3 s reconnect delay: nothing more was asked.
      await sleep(3500);
      assert.equal(requests.length, 1, `${where}, ${host}: ${requests.join(', ')}`);
    }
  }
  assert.equal(fake.children.length, 4, 'one run per example and host');
});
