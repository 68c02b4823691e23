import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
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
