import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp, manualClock } from '../support/app.ts';

// Issue 28, items 2 and 4: a 429 says what happened, once, in words (not a UNIX number), tells a
// caller with a key nothing about getting one, and the text face and the home page answer at the
// limit in their own forms, the visitor's address included.

const CURL = { 'user-agent': 'curl/8.5.0', accept: '*/*' };
const BROWSER = { 'user-agent': 'Mozilla/5.0', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const CLIENT = '198.51.100.7';
const AT = '2026-03-01T13:37:00Z';
const RESET = Date.parse('2026-03-01T14:00:00Z') / 1000;

type App = Awaited<ReturnType<typeof buildTestApp>>;

async function spend(app: App, count: number) {
  for (let i = 0; i < count; i++) {
    assert.equal((await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT })).statusCode, 200);
  }
}

test('a batch larger than what remains: "this batch has 101 items; 100 requests remain until 14:00 UTC", with remaining', async () => {
  const clock = manualClock(AT);
  const app = await buildTestApp({ RATE_LIMITS: 'public=200/1000' }, { now: clock.now });
  try {
    await spend(app, 100);
    const items = Array.from({ length: 101 }, (_, i) => `192.0.2.${i + 1}`);
    const refused = await app.inject({
      method: 'POST',
      url: '/api/v1/batch',
      remoteAddress: CLIENT,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(items),
    });
    assert.equal(refused.statusCode, 429);
    const body = refused.json();
    assert.match(body.error, /this batch has 101 items; 100 requests remain until 14:00 UTC \(in 23 minutes\)/);
    assert.equal(body.remaining, 100);
    assert.equal(body.limit, 200);
    assert.equal(body.reset, RESET);
    assert.equal(refused.headers['retry-after'], String(23 * 60));
  } finally {
    await app.close();
  }
});

test('a spent window: the reset said once in words; the public caller is told a key helps, a keyed one is not', async () => {
  const clock = manualClock(AT);
  const app = await buildTestApp({ RATE_LIMITS: 'public=2/1000' }, { now: clock.now });
  try {
    await spend(app, 2);
    const refused = await app.inject({ url: '/api/v1/ipv6', remoteAddress: CLIENT });
    const { error, remaining } = refused.json();
    assert.equal(remaining, 0);
    assert.match(error, /2 requests per hour, all used; the counter resets at 14:00 UTC \(in 23 minutes\)\./);
    assert.equal(error.match(/14:00/g)?.length, 1, 'the time once');
    assert.doesNotMatch(error, new RegExp(`${RESET}|T14:00:00`), 'no UNIX number, no ISO stamp');
    assert.match(error, /An API key .* raises the limit/);
  } finally {
    await app.close();
  }

  const accounts = await buildAccountsApp({ RATE_LIMITS: 'free=1/10' });
  try {
    const browser = sessionClient(accounts.app);
    await browser.signup('ann@example.com', PASSWORD);
    const key = (await browser.createKey('a')).json().key;
    const headers = { authorization: `Bearer ${key}` };
    assert.equal((await accounts.app.inject({ url: '/api/v1/ipv6', headers })).statusCode, 200);
    const refused = await accounts.app.inject({ url: '/api/v1/ipv6', headers });
    assert.equal(refused.statusCode, 429);
    assert.doesNotMatch(refused.json().error, /API key|dashboard/i, 'a caller with a key is not told to get one');
  } finally {
    await accounts.close();
  }
});

test('a refused key at a spent public window: told the key was refused, not to get one', async () => {
  const app = await buildTestApp({ RATE_LIMITS: 'public=1/1000' });
  try {
    await spend(app, 1);
    const refused = await app.inject({
      url: '/api/v1/ipv6',
      remoteAddress: CLIENT,
      headers: { authorization: `Bearer ${generateApiKey()}` },
    });
    assert.equal(refused.statusCode, 429);
    assert.match(refused.json().error, /The API key sent was refused, so the public limit applied\./);
    assert.doesNotMatch(refused.json().error, /raises the limit/);
  } finally {
    await app.close();
  }
});

test('the text face at the limit: the address still comes from / and /ip, other paths answer a line of text', async () => {
  const clock = manualClock(AT);
  const app = await buildTestApp({ RATE_LIMITS: 'public=2/1000' }, { now: clock.now });
  try {
    await spend(app, 2);
    for (const url of ['/', '/ip']) {
      const answer = await app.inject({ url, remoteAddress: CLIENT, headers: CURL });
      assert.equal(answer.statusCode, 200, url);
      assert.equal(answer.body, `${CLIENT}\n`, url);
    }
    for (const url of ['/city', '/asn?ip=192.0.2.1', '/city?bogus=1']) {
      const refused = await app.inject({ url, remoteAddress: CLIENT, headers: CURL });
      assert.equal(refused.statusCode, 429, url);
      assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8', url);
      assert.match(refused.body, /^Rate limit exceeded: .*14:00 UTC \(in 23 minutes\).*\n$/, url);
      assert.equal(refused.body.split('\n').length, 2, `${url}: one line`);
      assert.equal(refused.headers['retry-after'], String(23 * 60), url);
      assert.equal(refused.headers['x-ratelimit-limit'], '2', url);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0', url);
      assert.equal(refused.headers['x-ratelimit-reset'], String(RESET), url);
    }
  } finally {
    await app.close();
  }
});

test('the home page at the limit: the visitor address, and the limit message once where the facts would be', async () => {
  const clock = manualClock(AT);
  const app = await buildTestApp({ RATE_LIMITS: 'public=2/1000' }, { now: clock.now });
  try {
    await spend(app, 2);
    const page = await app.inject({ url: '/', remoteAddress: CLIENT, headers: BROWSER });
    assert.equal(page.statusCode, 429);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['retry-after'], String(23 * 60));
    assert.match(page.body, new RegExp(`<p class="address" id="my-ip">${CLIENT.replace(/\./g, '\\.')}</p>`));
    assert.match(page.body, new RegExp(`data-copy="${CLIENT.replace(/\./g, '\\.')}"`));
    const main = page.body.slice(page.body.indexOf('<main'), page.body.indexOf('</main>'));
    assert.match(main, /<p class="alert warn" role="alert">Rate limit exceeded: .*14:00 UTC \(in 23 minutes\)/);
    assert.equal(main.match(/14:00/g)?.length, 1, 'the reset time once');
    assert.doesNotMatch(main, new RegExp(String(RESET)), 'never as a UNIX number');
  } finally {
    await app.close();
  }
});
