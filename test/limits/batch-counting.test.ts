import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { buildTestApp } from '../support/app.ts';

// A batch counts as its distinct items against the caller's limits, all or nothing: one larger than
// what remains is refused whole and counts nothing; a request that cannot be counted by its items
// (a body that is not a batch, a wrong content type, a bad key) counts as one, like any error.

type App = Awaited<ReturnType<typeof buildTestApp>>;
const CLIENT = '198.51.100.7';

function batch(app: App, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/batch',
    remoteAddress: CLIENT,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-ratelimit-remaining']);
const addresses = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `192.0.2.${from + i + 1}`);

test('exactly what remains passes; one item more is refused whole and counts nothing', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=10/100' });
  try {
    const first = await batch(app, addresses(3));
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-limit'], '10');
    assert.equal(remaining(first), 7, 'three items counted three, the POST itself nothing more');

    const tooMany = await batch(app, addresses(8, 10));
    assert.equal(tooMany.statusCode, 429);
    assert.equal(tooMany.json().limit, 10, 'the hourly window refused it');
    assert.equal(typeof tooMany.json().reset, 'number');
    assert.equal(remaining(tooMany), 7, 'the headers show the state after the refused batch: unchanged');

    // Eight items with one repeated are seven requests: exactly what remains.
    const exact = await batch(app, [...addresses(7, 20), '192.0.2.21']);
    assert.equal(exact.statusCode, 200, 'the refused batch counted nothing');
    assert.equal(Object.keys(exact.json()).length, 7, 'duplicates answered once');
    assert.equal(remaining(exact), 0);

    const single = await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT });
    assert.equal(single.statusCode, 429, 'the window is spent');
  } finally {
    await app.close();
  }
});

test('a refused batch with repeats is told its distinct items and how many were sent', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=3/100' });
  try {
    const refused = await batch(app, [...addresses(4), '192.0.2.1', '192.0.2.2']);
    assert.equal(refused.statusCode, 429);
    assert.match(refused.json().error, /this batch has 4 distinct items \(of 6 sent\); 3 requests remain/);
    const passed = await batch(app, ['192.0.2.9', '192.0.2.8', '192.0.2.9']);
    assert.equal(passed.statusCode, 200);
    assert.deepEqual(
      Object.keys(passed.json()),
      ['192.0.2.9', '192.0.2.8'],
      'answered once each, in the order first sent',
    );
    assert.equal(remaining(passed), 1, 'counted as its two distinct items');
  } finally {
    await app.close();
  }
});

test('a body that is not a batch, a wrong content type and a bad key each count as one request', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=10/100' });
  try {
    const cases: [string, () => Promise<{ statusCode: number; headers: Record<string, unknown> }>][] = [
      ['not JSON', () => batch(app, '[1,')],
      ['an object', () => batch(app, { items: ['192.0.2.1'] })],
      ['empty', () => batch(app, [])],
      ['text/plain', () => batch(app, addresses(2), { 'content-type': 'text/plain' })],
      ['unknown key', () => batch(app, addresses(2), { authorization: `Bearer ${generateApiKey()}` })],
    ];
    let left = 10;
    const expected = { 'not JSON': 400, 'an object': 400, empty: 400, 'text/plain': 415, 'unknown key': 401 };
    for (const [what, send] of cases) {
      const response = await send();
      assert.equal(response.statusCode, expected[what as keyof typeof expected], what);
      left -= 1;
      assert.equal(remaining(response), left, `${what}: counted once, with the headers`);
    }
  } finally {
    await app.close();
  }
});

test('the plain-text paths that look something up count like API requests; / and /ip cost nothing', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=10/100' });
  try {
    const curl = { 'user-agent': 'curl/8.0', accept: '*/*' };
    const city = await app.inject({ url: '/city', remoteAddress: CLIENT, headers: curl });
    assert.equal(remaining(city), 9);
    const encoded = await app.inject({ url: '/%63ity', remoteAddress: CLIENT, headers: curl });
    assert.equal(remaining(encoded), 8, 'an encoded spelling of a text path is the same path');
    // Issue 28: the caller's own address is told without counting (so even at the limit).
    for (const url of ['/ip', '/%69p', '/']) {
      const answer = await app.inject({ url, remoteAddress: CLIENT, headers: curl });
      assert.equal(answer.statusCode, 200, url);
      assert.equal(answer.body, `${CLIENT}\n`, url);
      assert.equal(answer.headers['x-ratelimit-remaining'], undefined, `${url} is not counted`);
    }
    const after = await app.inject({ url: '/country', remoteAddress: CLIENT, headers: curl });
    assert.equal(remaining(after), 7, '/ and /ip took nothing from the window');
  } finally {
    await app.close();
  }
});
