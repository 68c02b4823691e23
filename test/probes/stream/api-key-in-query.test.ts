import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../../src/accounts/api-key-format.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../../support/accounts.ts';
import { createFakeSpawner, pingOnce } from '../../support/fake-spawner.ts';
import { captureLog } from '../../support/log-capture.ts';

// A browser's EventSource cannot send an Authorization header, so the stream endpoints (and only
// they) take the key as ?api_key=. Issue 18, item 11.

test('?api_key= on the streams: the account tier for a valid key, 401 for a bad one, 400 given twice; elsewhere an unknown parameter; never logged', async () => {
  const log = captureLog();
  const fake = createFakeSpawner(pingOnce);
  const { app, close } = await buildAccountsApp(
    { ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' },
    { spawner: fake.spawner, logStream: log.stream },
  );
  try {
    const owner = sessionClient(app);
    await owner.signup('streams@example.com', PASSWORD);
    const { key } = (await owner.createKey('browser')).json() as { key: string };
    const stream = (query: string, headers: Record<string, string> = {}) =>
      app.inject({ url: `/api/v1/ping?host=127.0.0.1&count=1&${query}`, headers, remoteAddress: '203.0.113.50' });

    const keyed = await stream(`api_key=${key}`);
    assert.equal(keyed.statusCode, 200, keyed.body);
    assert.equal(keyed.headers['x-ratelimit-limit'], '1000', 'counted on the Free tier, as with the header');
    const viaHeader = await stream('', { authorization: `Bearer ${key}` });
    assert.equal(
      Number(viaHeader.headers['x-ratelimit-remaining']),
      Number(keyed.headers['x-ratelimit-remaining']) - 1,
    );
    const traceroute = await app.inject({ url: `/api/v1/traceroute?host=127.0.0.1&api_key=${key}`, method: 'HEAD' });
    assert.equal(traceroute.headers['x-ratelimit-limit'], '1000', 'traceroute too');

    const unknown = await stream(`api_key=${generateApiKey()}`);
    assert.equal(unknown.statusCode, 401);
    assert.match(String(unknown.headers['www-authenticate']), /^Bearer error="invalid_token"/);
    assert.equal(unknown.headers['x-ratelimit-limit'], '100', 'a refused key is counted against the address');
    assert.equal((await stream('api_key=nonsense')).statusCode, 401);

    const both = await stream(`api_key=${key}`, { authorization: `Bearer ${key}` });
    assert.equal(both.statusCode, 400);
    assert.match(both.json().error, /'api_key'.*both sent/);
    const repeated = await stream(`api_key=${key}&api_key=${key}`);
    assert.equal(repeated.statusCode, 400);
    assert.match(repeated.json().error, /'api_key'.*more than once/);

    // Only there: any other endpoint refuses it as a parameter it does not take.
    const json = await app.inject({ url: `/api/v1/json?api_key=${key}` });
    assert.equal(json.statusCode, 400);
    assert.match(json.json().error, /Unknown query parameter 'api_key'/);
    assert.equal(fake.children.length, 2, 'the refused requests ran nothing');

    assert.ok(!log.text().includes(key.slice(3)), 'the key never reaches the log');
  } finally {
    await close();
  }
});
