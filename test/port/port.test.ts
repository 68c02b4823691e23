import assert from 'node:assert/strict';
import { request } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { buildTestApp } from '../support/app.ts';

// /port/{n} and /api/v1/port/{n} on loopback, the caller's address chosen by binding the client to
// it (127.0.0.2) or by inject's remoteAddress. The namespace tests (netns.test.ts) cover a caller on
// another host: an open, a closed and a silent port.

/** A listener that counts the connections it accepts. */
async function listener(host: string) {
  const accepted: string[] = [];
  const server: Server = createServer((socket) => {
    accepted.push(socket.remoteAddress ?? '');
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, accepted, close: () => void server.close() };
}

/** A GET from `localAddress`, as a real client: status, headers and the body's exact text. */
function get(url: string, localAddress: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(url, { localAddress }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(env: Record<string, string> = {}) {
  const app = await buildTestApp(env);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** An app whose policy opens `address` alone, and a listener there, both closed after `run`. */
async function withCallerListening(
  address: string,
  run: (app: Awaited<ReturnType<typeof buildTestApp>>, target: Awaited<ReturnType<typeof listener>>) => Promise<void>,
) {
  const target = await listener(address);
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: `${address}/${address.includes(':') ? 128 : 32}` });
  try {
    await run(app, target);
  } finally {
    await app.close();
    target.close();
  }
}

const echoipBody = (fields: string) => `{\n${fields}\n}`;

test('a loopback caller is refused under the default policy with the 400 of a forbidden target, and nothing is connected', async (t) => {
  const target = await listener('127.0.0.2');
  t.after(target.close);
  const { app, base } = await serve();
  t.after(() => app.close());
  for (const path of [`/api/v1/port/${target.port}`, `/port/${target.port}`]) {
    const response = await get(`${base}${path}`, '127.0.0.2');
    assert.equal(response.status, 400, path);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', path);
    assert.equal(
      JSON.parse(response.body).error,
      'Cannot check a port of your address: 127.0.0.2 is a loopback address (Loopback, 127.0.0.0/8); the service does not connect to private, loopback, link-local, multicast, reserved or metadata addresses.',
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(target.accepted, [], 'no connection reached the listener');

  // The same caller under a policy that covers it is connected to: the refusal above was the policy's.
  const allowed = await serve({ ALLOW_PRIVATE_TARGETS: '127.0.0.2/32' });
  t.after(() => allowed.app.close());
  const response = await get(`${allowed.base}/port/${target.port}`, '127.0.0.2');
  assert.equal(response.status, 200);
  assert.equal(response.body, echoipBody(`  "ip": "127.0.0.2",\n  "port": ${target.port},\n  "reachable": true`));
  assert.deepEqual(target.accepted, ['127.0.0.1']);
});

test("bad ports are echoip's 400 on /port/{n}, byte for byte, and the API's invalid-parameter 400 on /api/v1/port/{n}", async (t) => {
  const app = await buildTestApp({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' });
  t.after(() => app.close());
  for (const [segment, shown] of [
    ['abc', 'abc'],
    ['0', '0'],
    ['65536', '65536'],
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['+80', '+80'],
    ['99999999999999999999', '99999999999999999999'],
    // Go's filepath.Base of "/port/" is "port"; the segment is percent-decoded and escaped as Go escapes.
    ['', 'port'],
    ['%3Ca%3E%26', String.raw`\u003ca\u003e\u0026`],
  ]) {
    const response = await app.inject({ url: `/port/${segment}`, remoteAddress: '127.0.0.1' });
    assert.equal(response.statusCode, 400, segment);
    assert.equal(response.headers['content-type'], 'application/json', segment);
    assert.equal(response.body, `{\n  "status": 400,\n  "error": "invalid port: ${shown}"\n}`, segment);
  }
  for (const segment of ['x', '0', '65536', '1.5', '8e1']) {
    const response = await app.inject({ url: `/api/v1/port/${segment}`, remoteAddress: '127.0.0.1' });
    assert.equal(response.statusCode, 400, segment);
    assert.deepEqual(response.json(), {
      error: "Invalid path parameter 'n': a whole number from 1 to 65535.",
    });
  }
});

test('?ip= cannot point the check elsewhere: an unknown parameter, a 400 on both paths, and nothing is connected', async () => {
  await withCallerListening('127.0.0.1', async (app, target) => {
    for (const path of [`/port/${target.port}`, `/api/v1/port/${target.port}`]) {
      const response = await app.inject({ url: `${path}?ip=1.2.3.4`, remoteAddress: '127.0.0.1' });
      assert.equal(response.statusCode, 400, path);
      assert.match(
        response.json().error,
        /^Unknown query parameter 'ip': GET \/(api\/v1\/)?port\/:n takes no query parameters\.$/,
      );
    }
    // Without it the same request connects: the 400 above is what kept the listener untouched.
    assert.deepEqual(target.accepted, []);
    const response = await app.inject({ url: `/api/v1/port/${target.port}`, remoteAddress: '127.0.0.1' });
    assert.equal(response.json().reachable, true);
    assert.equal(target.accepted.length, 1);
  });
});

test('each check counts 1 against the rate limits (X-RateLimit-Remaining drops by one), on both paths', async () => {
  await withCallerListening('127.0.0.1', async (app, target) => {
    const remaining: number[] = [];
    for (const path of ['/port', '/api/v1/port', '/api/v1/port', '/port']) {
      const response = await app.inject({ url: `${path}/${target.port}`, remoteAddress: '127.0.0.1' });
      assert.equal(response.statusCode, 200, path);
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
    }
    const first = remaining[0] ?? 0;
    assert.deepEqual(remaining, [first, first - 1, first - 2, first - 3]);
    assert.equal(target.accepted.length, 4);
  });
});

test('an IPv6 caller is connected to over IPv6 and named as Node prints it; a leading zero reads as echoip reads it', async () => {
  await withCallerListening('::1', async (app, target) => {
    const text = await app.inject({ url: `/port/0${target.port}`, remoteAddress: '::1' });
    assert.equal(text.body, echoipBody(`  "ip": "::1",\n  "port": ${target.port},\n  "reachable": true`));
    assert.equal(text.headers['cache-control'], 'no-store');
    const api = await app.inject({ url: `/api/v1/port/${target.port}`, remoteAddress: '::1' });
    const answer = api.json();
    assert.deepEqual(
      { ...answer, time_ms: typeof answer.time_ms },
      {
        ip: '::1',
        port: target.port,
        reachable: true,
        time_ms: 'number',
        reason: null,
      },
    );
    assert.equal(api.headers['cache-control'], 'no-store');
    assert.deepEqual(target.accepted, ['::1', '::1']);
  });
});

test('behind a trusted proxy the caller is the client it names; from an untrusted peer the header changes nothing', async (t) => {
  const target = await listener('127.0.0.3');
  t.after(target.close);
  const headers = { 'x-forwarded-for': '127.0.0.3' };
  const trusting = await buildTestApp({ ALLOW_PRIVATE_TARGETS: '127.0.0.3/32', TRUST_PROXY: 'loopback' });
  t.after(() => trusting.close());
  const proxied = await trusting.inject({ url: `/port/${target.port}`, headers, remoteAddress: '127.0.0.1' });
  assert.equal(proxied.body, echoipBody(`  "ip": "127.0.0.3",\n  "port": ${target.port},\n  "reachable": true`));
  assert.equal(target.accepted.length, 1);

  const untrusting = await buildTestApp({ ALLOW_PRIVATE_TARGETS: '127.0.0.3/32' });
  t.after(() => untrusting.close());
  const direct = await untrusting.inject({ url: `/api/v1/port/${target.port}`, headers, remoteAddress: '127.0.0.1' });
  assert.equal(direct.statusCode, 400);
  assert.match(direct.json().error, /^Cannot check a port of your address: 127\.0\.0\.1 is a loopback address/);
  assert.equal(target.accepted.length, 1, 'no second connection');
});

test('HEAD /port/{n} connects to nothing: a 404, as on ifconfig.co (which serves GET only)', async () => {
  await withCallerListening('127.0.0.1', async (app, target) => {
    for (const url of [`/port/${target.port}`, `/api/v1/port/${target.port}`]) {
      const response = await app.inject({ method: 'HEAD', url });
      assert.equal(response.statusCode, 404, url);
    }
    assert.deepEqual(target.accepted, []);
  });
});
