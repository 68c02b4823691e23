import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { buildAccountsApp, cookieOf, PASSWORD, sessionClient } from '../support/accounts.ts';
import { manualClock } from '../support/app.ts';
import { captureLog } from '../support/log-capture.ts';

test('the session cookie: HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP', async () => {
  const { app, close } = await buildAccountsApp();
  const signup = await sessionClient(app).signup('ann@example.com', PASSWORD);
  const header = String(signup.headers['set-cookie']);
  assert.match(header, /^netinfo_session=[A-Za-z0-9_-]{43}; /);
  for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=2592000']) {
    assert.ok(header.split('; ').includes(attribute), attribute);
  }
  assert.ok(!header.includes('Secure'));
  await close();
});

test('behind a trusted HTTPS proxy the cookie is __Host- and Secure; a plain-HTTP cookie is ignored there', async () => {
  const { app, close } = await buildAccountsApp({ TRUST_PROXY: 'loopback' });
  const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
  const signup = await app.inject({
    method: 'POST',
    url: '/api/v1/account/signup',
    headers: https,
    payload: { email: 'ann@example.com', password: PASSWORD },
  });
  const header = String(signup.headers['set-cookie']);
  assert.match(header, /^__Host-netinfo_session=/);
  assert.ok(header.split('; ').includes('Secure'));
  const id = cookieOf(signup).split('=')[1];
  const secure = await app.inject({
    url: '/api/v1/account',
    headers: { ...https, cookie: `__Host-netinfo_session=${id}` },
  });
  assert.equal(secure.statusCode, 200);
  // Cookie tossing: a cookie without the __Host- prefix may have been planted over plain HTTP.
  const tossed = await app.inject({ url: '/api/v1/account', headers: { ...https, cookie: `netinfo_session=${id}` } });
  assert.equal(tossed.statusCode, 401);
  // A client that is not the trusted proxy cannot claim HTTPS.
  const spoofed = await app.inject({
    method: 'POST',
    url: '/api/v1/account/login',
    remoteAddress: '203.0.113.9',
    headers: { 'x-forwarded-proto': 'https' },
    payload: { email: 'ann@example.com', password: PASSWORD },
  });
  assert.match(String(spoofed.headers['set-cookie']), /^netinfo_session=/);
  await close();
});

test('CSRF: state changes need the session token; a wrong or foreign token is refused', async () => {
  const { app, close } = await buildAccountsApp();
  const ann = sessionClient(app);
  const bob = sessionClient(app);
  await ann.signup('ann@example.com', PASSWORD);
  await bob.signup('bob@example.com', PASSWORD);
  const key = (await ann.createKey('kept')).json();
  const annToken = ann.state.csrf;

  for (const token of ['', 'wrong', bob.state.csrf]) {
    ann.state.csrf = token;
    const create = await ann.createKey('forged');
    assert.equal(create.statusCode, 403, `token ${JSON.stringify(token)}`);
    assert.match(create.json().error, /cross-site request forgery/);
    assert.equal((await ann.revokeKey(key.id)).statusCode, 403);
    assert.equal((await ann.logout()).statusCode, 403);
  }
  ann.state.csrf = annToken;
  assert.equal((await ann.account()).statusCode, 200, 'the refused logout did not end the session');
  assert.equal(
    (await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key.key}` } })).statusCode,
    200,
  );
  assert.equal((await ann.listKeys()).json().keys.length, 1, 'nothing was created');
  await close();
});

test('CSRF: cross-site browsers are refused by Sec-Fetch-Site or Origin, forms by their content type', async () => {
  const { app, close } = await buildAccountsApp();
  const ann = sessionClient(app);
  await ann.signup('ann@example.com', PASSWORD);
  const login = (
    headers: Record<string, string>,
    payload: string | object = { email: 'ann@example.com', password: PASSWORD },
  ) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/account/login',
      headers: { host: 'netinfo.example', ...headers },
      payload,
    });

  for (const site of ['cross-site', 'same-site']) {
    const response = await login({ 'sec-fetch-site': site });
    assert.equal(response.statusCode, 403, site);
    assert.match(response.json().error, new RegExp(`Sec-Fetch-Site is ${site}`));
  }
  assert.equal((await login({ origin: 'https://evil.example' })).statusCode, 403);
  assert.equal((await login({ origin: 'null' })).statusCode, 403);
  assert.equal((await login({ origin: 'https://netinfo.example.evil.example' })).statusCode, 403);
  assert.equal((await login({ 'sec-fetch-site': 'same-origin', origin: 'https://netinfo.example' })).statusCode, 200);
  assert.equal((await login({ origin: 'https://netinfo.example' })).statusCode, 200);
  assert.equal((await login({})).statusCode, 200, 'no browser headers: a script or curl');

  // An HTML form can send urlencoded or text/plain bodies, never JSON.
  for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
    const response = await login({ 'content-type': type }, 'email=ann%40example.com&password=x');
    assert.equal(response.statusCode, 415, type);
  }
  const textPlainJson = await login(
    { 'content-type': 'text/plain' },
    JSON.stringify({ email: 'ann@example.com', password: PASSWORD }),
  );
  assert.equal(textPlainJson.statusCode, 415, 'JSON smuggled in a text/plain form body');

  // The session's own state changes too.
  const create = await ann.createKey('x', { origin: 'https://evil.example' });
  assert.equal(create.statusCode, 403);
  await close();
});

test('JSON bodies that cannot be used get a 400 saying why', async () => {
  const { app, close } = await buildAccountsApp();
  const signup = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/account/signup',
      headers: { 'content-type': 'application/json' },
      payload,
    });
  const cases: [string, RegExp][] = [
    ['{"email": "ann@example.com", "password": ', /^The body is not valid JSON: Unexpected end of JSON input\.$/],
    ['{"email": "ann@example.com",}', /^The body is not valid JSON: .*position \d+/],
    ['', /^The body is empty: send a JSON object\.$/],
    [
      '{"__proto__": {"admin": true}, "email": "ann@example.com", "password": "x"}',
      /"__proto__" or "constructor\.prototype" key/,
    ],
    ['{"email": "a@example.com", "password": "x", "x": {"constructor": {"prototype": {}}}}', /constructor\.prototype/],
  ];
  for (const [payload, message] of cases) {
    const response = await signup(payload);
    assert.equal(response.statusCode, 400, payload);
    assert.match(response.json().error, message, payload);
  }
  await close();
});

test('CORS never lets another site read or send credentialed account requests', async () => {
  const { app, close } = await buildAccountsApp();
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/account/keys',
    headers: {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-csrf-token',
    },
  });
  assert.equal(preflight.headers['access-control-allow-origin'], '*');
  assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
  assert.doesNotMatch(String(preflight.headers['access-control-allow-headers']), /x-csrf-token/i);
  const read = await app.inject({ url: '/api/v1/account', headers: { origin: 'https://evil.example' } });
  assert.equal(read.headers['access-control-allow-credentials'], undefined);
  await close();
});

test('fixation: a session id the client made up is never adopted, and login issues a new one', async () => {
  const { app, close } = await buildAccountsApp();
  await sessionClient(app).signup('ann@example.com', PASSWORD);
  const planted = `netinfo_session=${randomBytes(32).toString('base64url')}`;
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: planted } })).statusCode, 401);
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/account/login',
    headers: { cookie: planted },
    payload: { email: 'ann@example.com', password: PASSWORD },
  });
  assert.equal(login.statusCode, 200);
  assert.notEqual(cookieOf(login), planted);
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: planted } })).statusCode, 401);
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: cookieOf(login) } })).statusCode, 200);
  await close();
});

test('a stale duplicate of the session cookie, before or after the real one, does not hide it', async () => {
  const { app, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const real = browser.state.cookie;
  const stale = `netinfo_session=${'A'.repeat(43)}`;
  for (const cookie of [`${stale}; ${real}`, `${real}; ${stale}`, `theme=dark; ${stale}; ${real}`]) {
    const response = await app.inject({ url: '/api/v1/account', headers: { cookie } });
    assert.equal(response.statusCode, 200, cookie);
  }
  const onlyStale = await app.inject({ url: '/api/v1/account', headers: { cookie: `${stale}; ${stale}` } });
  assert.equal(onlyStale.statusCode, 401);
  await close();
});

test('login renews the session: the previous id of this browser ends', async () => {
  const { app, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const before = browser.state.cookie;
  await browser.login('ann@example.com', PASSWORD);
  assert.notEqual(browser.state.cookie, before);
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: before } })).statusCode, 401);
  assert.equal((await browser.account()).statusCode, 200);
  // Signing up for another account in the same browser ends the session it had too.
  const annSession = browser.state.cookie;
  await browser.signup('bob@example.com', PASSWORD);
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: annSession } })).statusCode, 401);
  assert.equal((await browser.account()).json().email, 'bob@example.com');
  await close();
});

test('logout invalidates the session on the server, not just in the browser', async () => {
  const { app, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const stolen = browser.state.cookie;
  const logout = await browser.logout();
  assert.equal(logout.statusCode, 204);
  assert.match(String(logout.headers['set-cookie']), /^netinfo_session=; .*Max-Age=0/);
  assert.equal((await app.inject({ url: '/api/v1/account', headers: { cookie: stolen } })).statusCode, 401);
  // Logging out without a session is harmless.
  assert.equal((await app.inject({ method: 'POST', url: '/api/v1/account/logout' })).statusCode, 204);
  await close();
});

test('sessions end after SESSION_IDLE_MINUTES without use, and after 30 days in any case', async () => {
  const clock = manualClock('2026-02-01T00:00:00Z');
  const { app, close } = await buildAccountsApp({ SESSION_IDLE_MINUTES: '30' }, { now: clock.now });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  for (let step = 0; step < 4; step++) {
    clock.advance(29 * 60_000);
    assert.equal((await browser.account()).statusCode, 200, `used after 29 minutes (step ${step})`);
  }
  clock.advance(31 * 60_000);
  assert.equal((await browser.account()).statusCode, 401);
  await close();

  const longClock = manualClock('2026-02-01T00:00:00Z');
  const long = await buildAccountsApp({ SESSION_IDLE_MINUTES: '43200' }, { now: longClock.now });
  const user = sessionClient(long.app);
  await user.signup('ann@example.com', PASSWORD);
  longClock.advance(29 * 86_400_000);
  assert.equal((await user.account()).statusCode, 200);
  longClock.advance(2 * 86_400_000);
  assert.equal((await user.account()).statusCode, 401, 'older than 30 days');
  await long.close();
});

test('the session cookie and the CSRF token never reach the log', async () => {
  const written = captureLog();
  const { app, close } = await buildAccountsApp({ LOG_LEVEL: 'trace' }, { logStream: written.stream });
  app.get('/api/v1/careless', async (request) => {
    request.log.info({ headers: request.headers, req: request.raw }, 'careless');
    return {};
  });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  await app.inject({
    url: '/api/v1/careless',
    headers: { cookie: browser.state.cookie, 'x-csrf-token': browser.state.csrf },
  });
  const log = written.text();
  assert.match(log, /careless/);
  assert.ok(!log.includes(browser.state.cookie.split('=')[1] ?? 'none'));
  assert.ok(!log.includes(browser.state.csrf));
  assert.ok(!log.includes(PASSWORD));
  await close();
});
