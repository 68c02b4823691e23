import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { withoutApiKeys } from '../../src/http/logging.ts';
import { buildTestApp } from '../support/app.ts';
import { captureLog } from '../support/log-capture.ts';

test('at info every request writes one access line: id, method, URL, caller, status, time', async () => {
  const log = captureLog();
  const app = await buildTestApp({ LOG_LEVEL: 'info', TRUST_PROXY: 'loopback' }, { logStream: log.stream });
  await app.ready();
  const startup = log.lines().length;
  const ok = await app.inject({
    url: '/api/v1/ipv6',
    headers: { 'x-request-id': 'access-1', 'x-forwarded-for': '203.0.113.9' },
  });
  const missing = await app.inject({ url: '/api/v1/nothing', headers: { 'x-request-id': 'access-2' } });
  assert.equal(ok.statusCode, 200);
  assert.equal(missing.statusCode, 404);

  const lines = log.lines().slice(startup);
  assert.equal(lines.length, 2, JSON.stringify(lines));
  const [first, second] = lines;
  assert.equal(first?.msg, 'request completed');
  assert.equal(first?.reqId, 'access-1');
  assert.deepEqual(first?.req, { method: 'GET', url: '/api/v1/ipv6', remoteAddress: '203.0.113.9' });
  assert.deepEqual(first?.res, { statusCode: 200 });
  assert.equal(typeof first?.responseTime, 'number');
  assert.equal(second?.reqId, 'access-2');
  assert.deepEqual(second?.res, { statusCode: 404 });
  await app.close();
});

test('at warn requests write no access lines, while the app and request loggers still write', async () => {
  const log = captureLog();
  const app = await buildTestApp({ LOG_LEVEL: 'warn' }, { logStream: log.stream });
  app.get('/api/v1/warns', (request, reply) => {
    request.log.warn('from the route');
    reply.send({ ok: true });
  });
  await app.ready();
  const startup = log.lines().length;
  await app.inject({ url: '/api/v1/ipv6' });
  await app.inject({ url: '/api/v1/warns', headers: { 'x-request-id': 'warn-1' } });
  app.log.warn('from the app');
  assert.deepEqual(
    log
      .lines()
      .slice(startup)
      .map(({ msg, reqId }) => ({ msg, reqId })),
    [
      { msg: 'from the route', reqId: 'warn-1' },
      { msg: 'from the app', reqId: undefined },
    ],
  );
  await app.close();
});

test('an API key put in the URL is not logged; the rest of the URL is', async () => {
  const log = captureLog();
  const app = await buildTestApp({ LOG_LEVEL: 'info' }, { logStream: log.stream });
  await app.ready();
  const key = generateApiKey();
  await app.inject({ url: `/api/v1/ipv6?api_key=${key}&x=1` });
  await app.inject({ url: `/api/v1/dns/${key}` });
  const text = log.text();
  assert.ok(!text.includes(key.slice(3)), 'the key is not in the log');
  const urls = log
    .lines()
    .filter((line) => line.msg === 'request completed')
    .map((line) => (line.req as { url: string }).url);
  assert.deepEqual(urls, ['/api/v1/ipv6?api_key=nk_[redacted]&x=1', '/api/v1/dns/nk_[redacted]']);
  await app.close();
});

/** Every %XX decoded, again and again, as far as any reader of the log could take it. */
function decodedCompletely(text: string): string {
  let previous: string;
  let current = text;
  do {
    previous = current;
    current = current.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  } while (current !== previous);
  return current;
}

const percentEncodedWhole = (text: string) =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

// Regression: `?api_key=nk%5F...` was logged as sent, the redaction matching the literal key only.
test('a key in any percent-encoded spelling, anywhere in a request, never reaches the log', async () => {
  const log = captureLog();
  const app = await buildTestApp({ LOG_LEVEL: 'info' }, { logStream: log.stream });
  app.get(
    '/api/v1/logs-its-input',
    { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } } },
    (request, reply) => {
      request.log.warn({ detail: (request.query as { q?: string }).q }, `looked at ${request.headers['x-note']}`);
      reply.send({ ok: true });
    },
  );
  await app.ready();
  const key = generateApiKey();
  const body = key.slice(3);
  const spellings = [
    key,
    `nk%5F${body}`,
    `nk%5f${body}`,
    percentEncodedWhole(key),
    `nk%255F${body}`,
    `%6Ek_${body.slice(0, 10)}${percentEncodedWhole(body.slice(10, 20)).toLowerCase()}${body.slice(20)}`,
  ];
  for (const spelling of spellings) {
    await app.inject({ url: `/api/v1/ipv6?api_key=${spelling}&x=1` });
    await app.inject({ url: `/api/v1/nothing/${spelling}` });
    await app.inject({ url: `/api/v1/logs-its-input?q=${spelling}`, headers: { 'x-note': spelling } });
    await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${spelling}` } });
  }
  const text = log.text();
  // Each spelling stood in five places of the log (three access lines, the warning's field and its
  // message), and each was replaced whole, encoded prefix included.
  assert.equal(text.split('nk_[redacted]').length - 1, spellings.length * 5);
  assert.ok(!text.includes(body), 'the key is not in the log as written');
  assert.ok(!decodedCompletely(text).includes(body), 'nor in any decoding of it');
  const urls = log
    .lines()
    .filter((line) => line.msg === 'request completed')
    .map((line) => (line.req as { url: string }).url);
  assert.ok(urls.includes('/api/v1/ipv6?api_key=nk_[redacted]&x=1'), 'the rest of the URL is kept');
  await app.close();
});

test('withoutApiKeys leaves text that only looks alike', () => {
  const key = generateApiKey();
  for (const text of [
    `{"url":"/x?k=${key}1"}`, // 37 characters: not a key
    `{"url":"/x?k=a${key}"}`, // part of a longer word
    '{"msg":"100% of nk_ short"}',
    `{"url":"/x?k=nk%2F${key.slice(3)}"}`, // %2F is "/", not "_"
  ]) {
    assert.equal(withoutApiKeys(text), text);
  }
  assert.equal(withoutApiKeys(`{"url":"/x?k=${key}&y"}`), '{"url":"/x?k=nk_[redacted]&y"}');
});
