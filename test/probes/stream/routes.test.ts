import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { AppDeps } from '../../../src/app.ts';
import { buildTestApp } from '../../support/app.ts';
import { recordsHandler, startFakeDnsServer } from '../../support/fake-dns-server.ts';
import { createFakeResolver } from '../../support/fake-resolver.ts';
import { createFakeSpawner, type FakeChild, pingOnce } from '../../support/fake-spawner.ts';
import { type OpenedStream, openStream, parseSseBody, readJson } from '../../support/sse-client.ts';

async function appWith(env: Record<string, string>, deps: AppDeps = {}, script = pingOnce) {
  const fake = createFakeSpawner(script);
  const app = await buildTestApp(env, { spawner: fake.spawner, ...deps });
  return { app, fake };
}

test('invalid input is a 400 JSON error before any stream, and nothing is run', async () => {
  const { app, fake } = await appWith({ ALLOW_PRIVATE_TARGETS: 'true' });
  const cases: [string, RegExp][] = [
    ['/api/v1/ping', /Missing required query parameter 'host'/],
    ['/api/v1/ping?host=', /'host': is empty/],
    ['/api/v1/ping?host=-f', /'host'.*"-f"/],
    ['/api/v1/ping?host=--flood', /'host'/],
    ['/api/v1/ping?host=127.0.0.1;reboot', /'host'.*";"/],
    ['/api/v1/ping?host=example.com%0A', /'host'.*control character/],
    ['/api/v1/ping?host=127.0.0.1%0A-f', /'host'.*control character/],
    ['/api/v1/ping?host=127.0.0.1%20-f', /'host'/],
    [`/api/v1/ping?host=${'a'.repeat(300)}`, /'host': is longer than 253 characters/],
    [`/api/v1/ping?host=${`${'a'.repeat(60)}.`.repeat(5)}com`, /longer than 253/],
    ['/api/v1/ping?host=127.0.0.1&count=0', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=11', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=abc', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=2.5', /'count'/],
    ['/api/v1/ping?host=127.0.0.1&count=-1', /'count'/],
    // Ajv coerces these to non-finite numbers and then skips its own checks (http/validators.ts).
    ['/api/v1/ping?host=127.0.0.1&count=Infinity', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=-Infinity', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=1e999', /'count': must be a whole number from 1 to 10/],
    // Regression (issue 18): Number() reads these as 10, 5, 5, 5, 3; a count is decimal digits.
    ['/api/v1/ping?host=127.0.0.1&count=1e1', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=0x5', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=%2B5', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=%205', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&count=0b11', /'count': must be a whole number from 1 to 10/],
    ['/api/v1/ping?host=127.0.0.1&family=5', /'family': must be 4 or 6/],
    ['/api/v1/ping?host=::1&family=4', /'family': is 4 but host is an IPv6 address/],
    ['/api/v1/ping?host=a&host=b', /'host'/],
    ['/api/v1/traceroute', /Missing required query parameter 'host'/],
    ['/api/v1/traceroute?host=-f', /'host'/],
    ['/api/v1/traceroute?host=a%3Bb', /'host'.*";"/],
    ['/api/v1/traceroute?host=fe80::1%25eth0', /zone index/],
    ['/api/v1/mtr', /Missing required query parameter 'host'/],
    ['/api/v1/mtr?host=-f', /'host'/],
    ['/api/v1/mtr?host=127.0.0.1%0A--report', /'host'.*control character/],
    ['/api/v1/mtr?host=127.0.0.1&count=0', /'count': must be a whole number from 1 to 30/],
    ['/api/v1/mtr?host=127.0.0.1&count=31', /'count': must be a whole number from 1 to 30/],
    ['/api/v1/mtr?host=127.0.0.1&count=1e1', /'count': must be a whole number from 1 to 30/],
    ['/api/v1/mtr?host=::1&family=4', /'family': is 4 but host is an IPv6 address/],
    ['/api/v1/mtr?host=127.0.0.1&port=80', /Unknown query parameter|'port'/],
  ];
  for (const [url, message] of cases) {
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 400, url);
    assert.match(response.headers['content-type'] ?? '', /application\/json/, url);
    assert.match(response.json().error, message, url);
    assert.ok(response.headers['x-ratelimit-remaining'] !== undefined, url);
  }
  assert.equal(fake.children.length, 0);
  await app.close();
});

test('a host that is or resolves to a private/loopback address is a 400, unless ALLOW_PRIVATE_TARGETS', async () => {
  const resolver = createFakeResolver({ addresses: { 'intranet.test': [{ address: '10.1.2.3', family: 4 }] } });
  const { app, fake } = await appWith({}, { resolver });
  for (const [url, message] of [
    ['/api/v1/ping?host=127.0.0.1', /127\.0\.0\.1 is a loopback address/],
    ['/api/v1/traceroute?host=%5B::1%5D', /::1 is a loopback address/],
    ['/api/v1/ping?host=intranet.test', /intranet\.test resolves to 10\.1\.2\.3 is a private/],
    ['/api/v1/ping?host=169.254.169.254', /169\.254\.169\.254/],
  ] as const) {
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 400, url);
    assert.match(response.json().error, message, url);
  }
  assert.equal(fake.children.length, 0);
  await app.close();

  const allowed = await appWith({ ALLOW_PRIVATE_TARGETS: 'true' }, { resolver });
  const response = await allowed.app.inject({ url: '/api/v1/ping?host=intranet.test&count=1' });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(parseSseBody(response.body)[0], { type: 'start', host: 'intranet.test', resolved_ip: '10.1.2.3' });
  assert.deepEqual(allowed.fake.children[0]?.args.slice(-2), ['-4', '10.1.2.3']);
  await allowed.app.close();
});

test('names are resolved once by the project resolver and the tool gets the address; before any stream, a missing name is a 400 and a failed resolver a 502', async (t) => {
  const known = recordsHandler(
    [
      { name: 'target.netinfo.test', type: 'A', ttl: 60, data: '127.0.0.1' },
      { name: 'target.netinfo.test', type: 'AAAA', ttl: 60, data: '::1' },
      { name: 'v4only.netinfo.test', type: 'A', ttl: 60, data: '127.0.0.2' },
    ],
    'netinfo.test',
  );
  const dns = await startFakeDnsServer((question, context) =>
    question.name.startsWith('servfail.') ? { rcode: 'SERVFAIL' } : known(question, context),
  );
  let dnsOpen = true;
  const { app, fake } = await appWith({
    ALLOW_PRIVATE_TARGETS: 'true',
    DNS_SERVERS: `127.0.0.1:${dns.server.port}`,
    DNS_TIMEOUT_MS: '200',
  });
  // A failed assertion must not leave the server and the fake DNS open (the run would never end).
  t.after(async () => {
    await app.close();
    if (dnsOpen) await dns.close();
  });
  const body = async (url: string) => {
    const response = await app.inject({ url });
    assert.equal(response.statusCode, 200, url);
    return parseSseBody(response.body);
  };
  assert.deepEqual((await body('/api/v1/ping?host=Target.NetInfo.test&count=1'))[0], {
    type: 'start',
    host: 'target.netinfo.test',
    resolved_ip: '127.0.0.1',
  });
  assert.deepEqual(fake.children[0]?.args.slice(-2), ['-4', '127.0.0.1']);
  await body('/api/v1/traceroute?host=target.netinfo.test&family=6');
  assert.equal(fake.children[1]?.command, 'traceroute');
  assert.deepEqual(fake.children[1]?.args.slice(-2), ['-6', '::1']);

  // Regression (issue 18): these were a 200 stream holding one error event, while /ssl answered 400.
  const refused = async (url: string, status: number, message: RegExp) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await app.inject({ method, url });
      assert.equal(response.statusCode, status, `${method} ${url}`);
      assert.doesNotMatch(response.headers['content-type'] ?? '', /event-stream/, `${method} ${url}`);
      if (method === 'GET') assert.match(response.json().error, message, url);
    }
  };
  const before = fake.children.length;
  await refused(
    '/api/v1/ping?host=missing.netinfo.test',
    400,
    /^Invalid query parameter 'host': missing\.netinfo\.test has no address \(the name does not resolve\)\.$/,
  );
  await refused('/api/v1/traceroute?host=missing.netinfo.test', 400, /missing\.netinfo\.test has no address/);
  await refused('/api/v1/ping?host=v4only.netinfo.test&family=6', 400, /v4only\.netinfo\.test has no IPv6 address/);
  await refused(
    '/api/v1/ping?host=servfail.netinfo.test',
    502,
    /^could not resolve servfail\.netinfo\.test: .*SERVFAIL/,
  );
  await refused('/api/v1/traceroute?host=servfail.netinfo.test', 502, /could not resolve servfail\.netinfo\.test/);
  await dns.close();
  dnsOpen = false;
  await refused('/api/v1/traceroute?host=down.netinfo.test', 502, /could not resolve down\.netinfo\.test/);
  assert.equal(fake.children.length, before, 'no tool runs for a name without an address');
});

test('the stream carries the SSE headers and those the hooks set (CORS, rate limits, request id)', async () => {
  const { app } = await appWith({ ALLOW_PRIVATE_TARGETS: 'true' });
  const response = await app.inject({
    url: '/api/v1/ping?host=127.0.0.1&count=1',
    headers: { origin: 'https://site.example', 'x-request-id': 'stream-test-1' },
  });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.equal(response.headers['cache-control'], 'no-cache');
  assert.equal(response.headers['x-accel-buffering'], 'no');
  assert.equal(response.headers['access-control-allow-origin'], '*');
  assert.equal(response.headers['access-control-expose-headers'], '*');
  assert.equal(response.headers['x-content-type-options'], 'nosniff', 'issue 28: streams too');
  assert.equal(response.headers['x-ratelimit-limit'], '100');
  assert.equal(response.headers['x-ratelimit-remaining'], '99');
  assert.match(String(response.headers['x-ratelimit-reset']), /^\d+$/);
  assert.equal(response.headers['x-request-id'], 'stream-test-1');
  assert.equal(response.headers['content-length'], undefined);
  assert.deepEqual(
    parseSseBody(response.body).map((event) => event.type),
    ['start', 'reply', 'done'],
  );
  await app.close();
});

test('HEAD answers what GET would (stream headers, or the 400) without running anything', async () => {
  const { app, fake } = await appWith({ ALLOW_PRIVATE_TARGETS: 'true' });
  const response = await app.inject({ method: 'HEAD', url: '/api/v1/traceroute?host=127.0.0.1' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
  assert.equal(response.body, '');
  assert.equal((await app.inject({ method: 'HEAD', url: '/api/v1/ping?host=-f' })).statusCode, 400);
  assert.equal(fake.children.length, 0);
  await app.close();
  const strict = await appWith({});
  assert.equal((await strict.app.inject({ method: 'HEAD', url: '/api/v1/ping?host=127.0.0.1' })).statusCode, 400);
  await strict.app.close();
});

async function listening(env: Record<string, string>, deps: AppDeps = {}) {
  const app = await buildTestApp(env, deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

test('caps: per client, then in all (ping and traceroute together); 429 says which, and slots come back', async () => {
  const fake = createFakeSpawner(() => {}); // children run until the test ends them
  const { app, base } = await listening(
    { ALLOW_PRIVATE_TARGETS: 'true', STREAM_MAX_PER_CLIENT: '1', STREAM_MAX_CONCURRENT: '2', TRUST_PROXY: 'loopback' },
    { spawner: fake.spawner },
  );
  const as = (ip: string) => ({ 'x-forwarded-for': ip });
  const first = await openStream(`${base}/api/v1/ping?host=127.0.0.1`, as('192.0.2.1'));
  await first.nth(1);
  const again = await openStream(`${base}/api/v1/traceroute?host=127.0.0.1`, as('192.0.2.1'));
  assert.equal(again.status, 429);
  const clientBody = await readJson(again);
  assert.match(String(clientBody.error), /you already have 1 ping\/traceroute\/MTR stream open/);
  assert.equal(clientBody.limit, 1);
  const nowSeconds = Date.now() / 1000;
  assert.ok(
    Number(clientBody.reset) > nowSeconds && Number(clientBody.reset) < nowSeconds + 30,
    'reset within the time limit',
  );
  const retryAfter = Number(again.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) &&
      retryAfter >= 1 &&
      Math.abs(retryAfter - (Number(clientBody.reset) - nowSeconds)) <= 1,
    `Retry-After is the whole seconds until reset (issue 18: was missing), got ${again.headers['retry-after']}`,
  );

  const second = await openStream(`${base}/api/v1/traceroute?host=127.0.0.1`, as('192.0.2.2'));
  await second.nth(1);
  const third = await openStream(`${base}/api/v1/ping?host=127.0.0.1`, as('192.0.2.3'));
  assert.equal(third.status, 429);
  const serverBody = await readJson(third);
  assert.match(String(serverBody.error), /the server is running its maximum of 2/);
  assert.equal(serverBody.limit, 2);
  assert.ok(Number(third.headers['retry-after']) >= 1, 'the server-wide cap says Retry-After too');

  // The first client leaves: its child is killed and its slot is free again.
  first.abort();
  await waitFor(() => fake.children[0]?.exited === true);
  const retry = await openStream(`${base}/api/v1/ping?host=127.0.0.1`, as('192.0.2.3'));
  assert.equal(retry.status, 200);
  await retry.nth(1);
  await app.close();
  assert.equal(fake.children.filter((child) => !child.exited).length, 0, 'close ends every stream');
});

test("a busy server shares what is free: the 429 names the caller's share, and a caller with none still gets a slot (issue 28)", async () => {
  const fake = createFakeSpawner(() => {}); // children run until the test ends them
  const { app, base } = await listening(
    { ALLOW_PRIVATE_TARGETS: 'true', STREAM_MAX_PER_CLIENT: '3', STREAM_MAX_CONCURRENT: '4', TRUST_PROXY: 'loopback' },
    { spawner: fake.spawner },
  );
  const streams: OpenedStream[] = [];
  try {
    const open = async (ip: string) => {
      const stream = await openStream(`${base}/api/v1/mtr?host=127.0.0.1`, { 'x-forwarded-for': ip });
      if (stream.status === 200) {
        await stream.nth(1);
        streams.push(stream);
      }
      return stream;
    };
    // Two of four: a third while 2 are free would leave too little (2 × 3 is not more than 2 × 4).
    assert.equal((await open('192.0.2.1')).status, 200);
    assert.equal((await open('192.0.2.1')).status, 200);
    const refused = await open('192.0.2.1');
    assert.equal(refused.status, 429);
    const body = await readJson(refused);
    assert.equal(body.limit, 2);
    assert.match(String(body.error), /the server is busy.*may have only 2 ping\/traceroute\/MTR streams open at once/);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    for (const ip of ['192.0.2.2', '192.0.2.3']) assert.equal((await open(ip)).status, 200, ip);
  } finally {
    for (const stream of streams) stream.abort();
    await app.close();
  }
});

test('each event is written as soon as its line arrives: the fake ping writes its next line only once the client has the last event', {
  timeout: 5000,
}, async () => {
  const lines = [1, 2, 3].map((seq) => `64 bytes from 127.0.0.1: icmp_seq=${seq} ttl=64 time=0.0${seq} ms\n`);
  let child: FakeChild | undefined;
  const fake = createFakeSpawner((spawnedChild) => {
    child = spawnedChild;
  });
  const { app, base } = await listening({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const stream = await openStream(`${base}/api/v1/ping?host=127.0.0.1&count=3`);
  await stream.nth(1);
  for (const [index, line] of lines.entries()) {
    child?.stdout(line);
    const received = await stream.nth(index + 2);
    assert.equal(received.event.seq, index + 1);
  }
  child?.stdout('3 packets transmitted, 3 received, 0% packet loss, time 2003ms\n');
  child?.exit(0);
  const events = await stream.done;
  assert.equal(events.at(-1)?.event.type, 'done');
  await app.close();
});

test('closing the app ends open streams with an error event and kills their children', async () => {
  const fake = createFakeSpawner(() => {});
  const { app, base } = await listening({ ALLOW_PRIVATE_TARGETS: 'true' }, { spawner: fake.spawner });
  const stream = await openStream(`${base}/api/v1/traceroute?host=127.0.0.1`);
  await stream.nth(1);
  await app.close();
  const events = (await stream.done).map((received) => received.event);
  assert.deepEqual(events.at(-1), {
    type: 'error',
    message: 'The server is shutting down; the stream was stopped before it finished.',
  });
  assert.equal(fake.children[0]?.killedWith, 'SIGKILL');
});

test('the OpenAPI document describes both streams: text/event-stream with their events, count bounds and default', async () => {
  const { app } = await appWith({});
  const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
  for (const [path, types] of [
    ['/api/v1/ping', ['start', 'reply', 'timeout', 'done', 'error']],
    ['/api/v1/traceroute', ['start', 'hop', 'done', 'error']],
    ['/api/v1/mtr', ['start', 'hop', 'done', 'error']],
  ] as const) {
    const operation = doc.paths[path].get;
    const schema = operation.responses['200'].content['text/event-stream'].schema;
    assert.deepEqual(
      schema.anyOf.map((event: { properties: { type: { enum: string[] } } }) => event.properties.type.enum[0]),
      types,
    );
    assert.match(operation.description, /data: <JSON object>/);
    assert.ok(operation.responses['429'], path);
  }
  const count = doc.paths['/api/v1/ping'].get.parameters.find((p: { name: string }) => p.name === 'count');
  assert.deepEqual(
    { ...count.schema, required: count.required },
    {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      default: 4,
      required: false,
    },
  );
  const mtrCount = doc.paths['/api/v1/mtr'].get.parameters.find((p: { name: string }) => p.name === 'count');
  assert.deepEqual([mtrCount.schema.minimum, mtrCount.schema.maximum, mtrCount.schema.default], [1, 30, 10]);
  const params = (path: string) =>
    doc.paths[path].get.parameters.map((p: { name: string; schema: { enum?: string[]; default?: unknown } }) => [
      p.name,
      p.schema.default ?? null,
    ]);
  assert.deepEqual(
    params('/api/v1/ping').filter(([name]: [string]) => name === 'protocol' || name === 'port'),
    [
      ['protocol', 'icmp'],
      ['port', null],
    ],
  );
  assert.deepEqual(
    params('/api/v1/traceroute').filter(([name]: [string]) => name === 'protocol' || name === 'port'),
    [
      ['protocol', 'udp'],
      ['port', null],
    ],
  );
  const done = doc.paths['/api/v1/ping'].get.responses['200'].content['text/event-stream'].schema.anyOf[3];
  assert.match(done.properties.packet_loss.description, /Percentage/);
  await app.close();
});

async function waitFor(condition: () => boolean, ms = 2000) {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
