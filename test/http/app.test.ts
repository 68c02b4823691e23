import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { test } from 'node:test';
import { validationError } from '../../src/http/validation-errors.ts';
import { buildTestApp } from '../support/app.ts';
import { captureLog } from '../support/log-capture.ts';

test('every API response is CORS-open and carries a request id', async () => {
  const app = await buildTestApp();
  for (const url of ['/api/v1/ipv6', '/api/v1/missing', '/api/v1/openapi.json']) {
    const response = await app.inject({ url, headers: { origin: 'https://site.example' } });
    assert.equal(response.headers['access-control-allow-origin'], '*', url);
    assert.equal(response.headers['access-control-expose-headers'], '*');
    assert.match(String(response.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-z]+$/);
  }
  await app.close();
});

test('issue 28: every answer says X-Content-Type-Options: nosniff, API answers and errors included', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=6/60' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  try {
    const asked: [string, string, number][] = [
      ['GET', '/api/v1/ipv6', 200],
      ['GET', '/api/v1/openapi.json', 200],
      ['GET', '/api/v1/dns?name=', 400],
      ['GET', '/api/v1/missing', 404],
      ['DELETE', '/api/v1/ipv6', 405],
      ['GET', '/ip', 200],
      ['OPTIONS', '/api/v1/ipv6', 204],
    ];
    for (const [method, url, status] of asked) {
      const response = await fetch(`http://127.0.0.1:${port}${url}`, {
        method,
        ...(method === 'OPTIONS'
          ? { headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } }
          : {}),
      });
      await response.arrayBuffer();
      assert.equal(response.status, status, url);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${method} ${url}`);
    }
    let limited: Response;
    do limited = await fetch(`http://127.0.0.1:${port}/api/v1/ipv6`);
    while (limited.status !== 429);
    assert.equal(limited.headers.get('x-content-type-options'), 'nosniff', 'a 429');
    // Answered before any route or hook: an unreadable request, a bad percent escape, CONNECT.
    for (const request of [
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /api/v1/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    ]) {
      const response = parseRaw(await rawExchange(port, request));
      assert.equal(response.headers['x-content-type-options'], 'nosniff', request);
    }
  } finally {
    await app.close();
  }
});

test('a preflight is answered 204 allowing GET and the Authorization header', async () => {
  const app = await buildTestApp();
  const response = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/ipv6',
    headers: {
      origin: 'https://site.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
  });
  assert.equal(response.statusCode, 204);
  assert.match(String(response.headers['access-control-allow-methods']), /GET/);
  assert.match(String(response.headers['access-control-allow-headers']), /Authorization/);
  await app.close();
});

test('a sane X-Request-Id is echoed; anything else is replaced', async () => {
  const app = await buildTestApp();
  const echoed = await app.inject({ url: '/api/v1/ipv6', headers: { 'x-request-id': 'trace-42.a:b' } });
  assert.equal(echoed.headers['x-request-id'], 'trace-42.a:b');
  const replaced = await app.inject({ url: '/api/v1/ipv6', headers: { 'x-request-id': 'bad id\twith "stuff"' } });
  assert.notEqual(replaced.headers['x-request-id'], 'bad id\twith "stuff"');
  assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-z]+$/);
  await app.close();
});

test('unknown paths are 404 and other methods on known paths 405, as JSON errors', async () => {
  const app = await buildTestApp();
  const missing = await app.inject({ url: '/api/v1/nothing-here' });
  assert.equal(missing.statusCode, 404);
  assert.match(missing.headers['content-type'] ?? '', /application\/json/);
  assert.match(missing.json().error, /No endpoint GET \/api\/v1\/nothing-here/);
  const wrongMethod = await app.inject({ method: 'POST', url: '/api/v1/ipv6', payload: { a: 1 } });
  assert.equal(wrongMethod.statusCode, 405);
  assert.equal(wrongMethod.headers.allow, 'GET, HEAD, OPTIONS');
  assert.match(wrongMethod.json().error, /POST is not allowed/);
  await app.close();
});

test('a plain OPTIONS (no preflight) on a known path is 204 with Allow; on an unknown one, 404', async () => {
  const app = await buildTestApp();
  const known = await app.inject({ method: 'OPTIONS', url: '/api/v1/ipv6' });
  assert.equal(known.statusCode, 204);
  assert.equal(known.headers.allow, 'GET, HEAD, OPTIONS');
  assert.equal(known.headers['access-control-allow-origin'], '*');
  const unknown = await app.inject({ method: 'OPTIONS', url: '/api/v1/nothing-here' });
  assert.equal(unknown.statusCode, 404);
  await app.close();
});

/**
 * Sends raw bytes (a string is sent as UTF-8, as is: no client encodes it), in `pieces` writes a
 * little apart, and returns everything the server wrote before closing the connection.
 */
function rawExchange(port: number, request: string, pieces = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', async () => {
      const bytes = Buffer.from(request);
      const size = Math.ceil(bytes.length / pieces);
      for (let start = 0; start + size < bytes.length; start += size) {
        socket.write(bytes.subarray(start, start + size));
        await new Promise((resolveWait) => setTimeout(resolveWait, 20));
      }
      socket.end(bytes.subarray(size * (pieces - 1)));
    });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

function parseRaw(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? {} : JSON.parse(body) };
}

test('requests Fastify or Node cannot route or read get the error shape, a request id and CORS', async () => {
  const logs = captureLog();
  const app = await buildTestApp({}, { logStream: logs.stream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const cases: [string, string, number, RegExp][] = [
    [
      'a malformed percent escape',
      'GET /api/v1/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      400,
      /URL is not valid/,
    ],
    [
      'a path parameter over the limit',
      `GET /dashboard/assets/${'k'.repeat(150)} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
      414,
      /longer than 100 characters/,
    ],
    ['an unreadable request line', 'NOT HTTP AT ALL\r\n\r\n', 400, /malformed/],
    [
      'headers over 16 KiB',
      `GET /api/v1/ipv6 HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
      /too large/,
    ],
  ];
  try {
    for (const [what, request, status, message] of cases) {
      const response = parseRaw(await rawExchange(port, request));
      assert.equal(response.status, status, what);
      assert.match(response.headers['content-type'] ?? '', /application\/json/, what);
      assert.match(response.body.error, message, what);
      assert.deepEqual(Object.keys(response.body), ['error'], what);
      assert.equal(response.headers['access-control-allow-origin'], '*', what);
      assert.match(response.headers['x-request-id'] ?? '', /^[0-9a-f]{8}-[0-9a-z]+$/, what);
    }
    // The unreadable ones are logged (without the request's bytes), with the id the client saw.
    const refused = logs.lines().filter((line) => line.msg === 'unreadable request refused');
    assert.deepEqual(
      refused.map((line) => line.status),
      [400, 431],
    );
    assert.ok(!JSON.stringify(refused).includes('bbbb'));
  } finally {
    await app.close();
  }
});

test('issue 18: an over-long URL is a 414 (not a 431), a URL with raw non-ASCII bytes a 400 saying to percent-encode', async () => {
  const app = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const urlOfLength = (length: number) => `/api/v1/ipv6?q=`.padEnd(length, 'q');
  const request = (target: string) => `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`;
  const cases: [string, string, number, number, RegExp][] = [
    ['a URL just over 8 KiB', request(urlOfLength(8193)), 1, 414, /longer than 8192 bytes/],
    [
      "a URL over 16 KiB in one packet (past Node's header limit)",
      request(`/api/v1/ipv6?x=${'a'.repeat(20_000)}`),
      1,
      414,
      /longer than 8192 bytes/,
    ],
    [
      'the same URL in pieces, the limit passed in the one holding its end',
      request(`/api/v1/ipv6?x=${'a'.repeat(20_000)}`),
      5,
      414,
      /longer than 8192 bytes/,
    ],
    [
      'a long header is still a 431',
      `GET /api/v1/ipv6 HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      5,
      431,
      /headers are too large/,
    ],
    [
      'raw UTF-8 in the query',
      request('/api/v1/dns?host=bücher.example&record_type=A'),
      1,
      400,
      /percent-encoded.*%C3%BC/,
    ],
    ['raw UTF-8 in the path', request('/api/v1/jsön'), 1, 400, /percent-encoded/],
    ['a control character', request('/api/v1/dns?host=a\x01b&record_type=A'), 1, 400, /percent-encoded/],
  ];
  try {
    for (const [what, raw, pieces, status, message] of cases) {
      const response = parseRaw(await rawExchange(port, raw, pieces));
      assert.equal(response.status, status, what);
      assert.match(response.body.error, message, what);
      assert.deepEqual(Object.keys(response.body), ['error'], what);
      assert.equal(response.headers['access-control-allow-origin'], '*', what);
      assert.equal(response.headers['x-ratelimit-limit'], undefined, `${what}: not counted`);
    }
    // At the limit exactly, the URL is served.
    const atLimit = await app.inject({ url: urlOfLength(8192) });
    assert.notEqual(atLimit.statusCode, 414);
  } finally {
    await app.close();
  }
});

test('issue 18: a CONNECT request gets the 405 every other unserved method gets, not a dropped connection', async () => {
  const logs = captureLog();
  const app = await buildTestApp({}, { logStream: logs.stream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  try {
    for (const target of ['example.com:443', '127.0.0.1:22', '/api/v1/ipv6']) {
      const raw = await rawExchange(port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      const response = parseRaw(raw);
      assert.equal(response.status, 405, target);
      assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
      assert.match(response.body.error, /CONNECT is not allowed: this service is not a proxy/);
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.match(response.headers['x-request-id'] ?? '', /^[0-9a-f]{8}-[0-9a-z]+$/);
    }
    assert.equal(logs.lines().filter((line) => line.msg === 'CONNECT refused').length, 3);
  } finally {
    await app.close();
  }
});

test('an unexpected error is a 500 without internals, logged with the request id', async () => {
  const logs = captureLog();
  const app = await buildTestApp({}, { logStream: logs.stream });
  app.get('/api/v1/explode', async () => {
    throw new Error('secret internal detail at /srv/db');
  });
  const response = await app.inject({ url: '/api/v1/explode', headers: { 'x-request-id': 'req-500' } });
  assert.equal(response.statusCode, 500);
  assert.deepEqual(Object.keys(response.json()), ['error']);
  assert.doesNotMatch(response.body, /secret internal detail|stack|\/srv/);
  assert.match(response.json().error, /req-500/);
  assert.match(logs.text(), /"reqId":"req-500".*secret internal detail/);
  await app.close();
});

test('the Authorization header never reaches the log', async () => {
  const logs = captureLog();
  // A resolver that accepts the key, so the request reaches a handler that logs carelessly.
  const callers = { resolve: async () => ({ tier: 'free' as const, subject: 'account:1' }) };
  const app = await buildTestApp({ LOG_LEVEL: 'trace' }, { logStream: logs.stream, callers });
  app.get('/api/v1/log-request', async (request) => {
    request.log.info({ req: request.raw, headers: request.headers }, 'a careless log line');
    return { ok: true };
  });
  const secret = 'nk_SuperSecretKeyValue123456789';
  await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${secret}` } });
  const logged = await app.inject({ url: '/api/v1/log-request', headers: { authorization: `Bearer ${secret}` } });
  assert.equal(logged.statusCode, 200);
  assert.match(logs.text(), /a careless log line/);
  assert.doesNotMatch(logs.text(), /SuperSecretKeyValue/);
  await app.close();
});

test('validation issues become 400s naming the parameter', () => {
  assert.equal(
    validationError([{ instancePath: '', keyword: 'required', params: { missingProperty: 'host' } }]).message,
    "Missing required query parameter 'host'.",
  );
  const badEnum = validationError([
    { instancePath: '/record_type', keyword: 'enum', params: { allowedValues: ['A', 'MX'] } },
  ]);
  assert.equal(badEnum.status, 400);
  assert.equal(badEnum.message, "Invalid query parameter 'record_type': must be one of A, MX.");
  const hinted = validationError([{ instancePath: '/count', keyword: 'maximum', params: {} }], {
    count: 'a whole number from 1 to 10',
  });
  assert.equal(hinted.message, "Invalid query parameter 'count': a whole number from 1 to 10.");
});

test('the OpenAPI document is generated from the route schemas', async () => {
  const app = await buildTestApp();
  const response = await app.inject({ url: '/api/v1/openapi.json' });
  assert.equal(response.statusCode, 200);
  const doc = response.json();
  assert.equal(doc.openapi, '3.1.0');
  const ipv6 = doc.paths['/api/v1/ipv6'].get;
  assert.deepEqual(ipv6.responses['200'].content['application/json'].schema.required, [
    'ip',
    'is_ipv4',
    'is_ipv6',
    'protocol',
    'timestamp',
  ]);
  assert.ok(ipv6.responses['200'].headers['X-RateLimit-Reset']);
  assert.equal(ipv6.responses['429'].content['application/json'].schema.$ref, '#/components/schemas/ErrorBody');
  assert.ok(doc.paths['/healthz'] && doc.paths['/readyz']);
  await app.close();
});

test('readiness reports starting (503) until every registered check is ready', async () => {
  const app = await buildTestApp();
  let loaded = false;
  app.readiness.add('geo-data', () => (loaded ? { state: 'ready' } : { state: 'starting', detail: 'loading' }));
  assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
  loaded = true;
  const ready = await app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.equal(ready.json().status, 'ready');
  await app.close();
});

test('issue 18: an unknown query parameter is a 400 naming it and listing the valid ones, on every documented GET', async () => {
  const app = await buildTestApp();
  try {
    // The bug: /json answered about the caller, and the user believed they had looked up 1.1.1.1.
    const json = await app.inject({ url: '/api/v1/json?ip=1.1.1.1' });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, "Unknown query parameter 'ip': GET /api/v1/json takes only 'fields'.");
    assert.equal(json.headers['x-ratelimit-remaining'], '99', 'counted like any other 400');

    const typo = await app.inject({ url: '/api/v1/dns?hots=example.com&record_type=A' });
    assert.equal(
      typo.json().error,
      "Unknown query parameter 'hots': GET /api/v1/dns takes only 'host', 'record_type', 'dnssec'.",
    );
    const several = await app.inject({ url: '/api/v1/ping?host=127.0.0.1&count=2&size=100&ttl=3' });
    assert.equal(several.statusCode, 400);
    assert.match(
      several.json().error,
      /^Unknown query parameters 'size', 'ttl': GET \/api\/v1\/ping takes only 'host', 'count', 'family', 'protocol', 'port', 'api_key'\.$/,
    );
    const caseMatters = await app.inject({ url: '/api/v1/blacklist?IP=192.0.2.1' });
    assert.match(caseMatters.json().error, /'IP': GET \/api\/v1\/blacklist takes only 'ip'\./);

    // Every GET operation of the OpenAPI document, with the names it documents.
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    let checked = 0;
    type Operation = { parameters?: { in: string; name: string }[] };
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      const operation = item.get;
      if (!operation || path.includes('{')) continue;
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const response = await app.inject({ url: `${path}?zz_unknown=1` });
      assert.equal(response.statusCode, 400, path);
      // The text face's paths say it as a line of text (issue 28), the API as JSON.
      const text = String(response.headers['content-type']).startsWith('text/plain');
      const message = text ? response.body.trimEnd() : (response.json().error as string);
      assert.match(message, /^Unknown query parameter 'zz_unknown': GET /, path);
      for (const parameter of declared) assert.ok(message.includes(parameter.name), `${path}: lists ${parameter.name}`);
      if (declared.length === 0) assert.match(message, /takes no query parameters/, path);
      checked++;
    }
    assert.ok(checked >= 12, `checked ${checked} operations`);

    // Pages a browser opens keep whatever a link adds.
    assert.equal((await app.inject({ url: '/dashboard?utm_source=newsletter' })).statusCode, 200);
  } finally {
    await app.close();
  }
});
