import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { manualClock } from '../support/app.ts';

const unix = (iso: string) => Date.parse(iso) / 1000;

test('login attempts per email: 10 per 15 minutes, whoever makes them, then 429 until the window ends', async () => {
  const clock = manualClock('2026-03-01T10:02:00Z');
  const { app, close } = await buildAccountsApp({}, { now: clock.now });
  await sessionClient(app).signup('ann@example.com', PASSWORD);
  for (let attempt = 1; attempt <= 10; attempt++) {
    // From ten different addresses: per-client limits do not help the attacker.
    const response = await sessionClient(app, { ip: `198.51.100.${attempt}` }).login(
      'ann@example.com',
      'wrong password',
    );
    assert.equal(response.statusCode, 401, `attempt ${attempt}`);
  }
  const refused = await sessionClient(app, { ip: '198.51.100.99' }).login('ann@example.com', PASSWORD);
  assert.equal(refused.statusCode, 429, 'even the right password waits: otherwise the limit would be an oracle');
  assert.equal(refused.json().reset, unix('2026-03-01T10:15:00Z'));
  assert.equal(refused.json().limit, 10);
  assert.equal(refused.headers['retry-after'], String(13 * 60));
  assert.match(refused.json().error, /Too many login attempts/);
  // Other emails are not affected.
  assert.equal((await sessionClient(app, { ip: '198.51.100.99' }).login('bob@example.com', PASSWORD)).statusCode, 401);

  clock.set('2026-03-01T10:15:00Z');
  assert.equal((await sessionClient(app, { ip: '198.51.100.99' }).login('ann@example.com', PASSWORD)).statusCode, 200);
  await close();
});

test('an unknown email and a wrong password are indistinguishable, throttling included', async () => {
  const { app, close } = await buildAccountsApp();
  await sessionClient(app).signup('ann@example.com', PASSWORD);
  const answers = (email: string) =>
    Promise.all(
      Array.from({ length: 11 }, async (_, index) => {
        const response = await sessionClient(app, { ip: `192.0.2.${index + 1}` }).login(email, 'wrong password');
        return `${response.statusCode} ${response.json().error.replace(/after .*/, '')}`;
      }),
    );
  const known = await answers('ann@example.com');
  const unknown = await answers('nobody@example.com');
  assert.deepEqual(unknown, known);
  assert.equal(known.filter((answer) => answer.startsWith('401 The email or the password is incorrect.')).length, 10);
  assert.equal(known.filter((answer) => answer.startsWith('429')).length, 1);
  await close();
});

test('login attempts per client: 20 per 15 minutes over any emails; other clients unaffected', async () => {
  const { app, close } = await buildAccountsApp();
  const attacker = sessionClient(app, { ip: '203.0.113.50' });
  for (let attempt = 1; attempt <= 20; attempt++) {
    assert.equal((await attacker.login(`user${attempt}@example.com`, 'guess guess guess')).statusCode, 401);
  }
  const refused = await attacker.login('user21@example.com', 'guess guess guess');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.json().limit, 20);
  assert.equal((await sessionClient(app, { ip: '203.0.113.51' }).login('user21@example.com', 'guess')).statusCode, 401);
  await close();
});

test('sign-ups: 10 per client per hour', async () => {
  const { app, close } = await buildAccountsApp();
  const client = sessionClient(app, { ip: '2001:db8:5:6::1' });
  for (let index = 1; index <= 10; index++) {
    assert.equal((await client.signup(`new${index}@example.com`, PASSWORD)).statusCode, 201);
  }
  // The same /64 is the same client.
  const refused = await sessionClient(app, { ip: '2001:db8:5:6::ffff' }).signup('new11@example.com', PASSWORD);
  assert.equal(refused.statusCode, 429);
  assert.match(refused.json().error, /Too many sign-ups/);
  await close();
});

test('sign-up validation: email shape, password rules, duplicate email (409); no mass assignment', async () => {
  const { app, close } = await buildAccountsApp();
  const cases: [unknown, number, RegExp][] = [
    [{ email: 'not-an-email', password: PASSWORD }, 400, /^The email address must look like name@example\.com\.$/],
    // Issue 28: sentences for the person at the form, not "Invalid field 'password'".
    [{ email: 'ann@example.com', password: 'short' }, 400, /^The password must be 10 to 128 characters long\.$/],
    [{ email: 'ann@example.com', password: 'x'.repeat(129) }, 400, /must be 10 to 128/],
    [{ email: 'ann@example.com', password: 'password1234' }, 400, /^The password is one of the most common passwords/],
    [{ email: 'ann@example.com', password: '1111111111' }, 400, /^The password must not be one character repeated\.$/],
    [{ email: 'ann@example.com', password: '\0'.repeat(10) }, 400, /^The password must not contain control characters/],
    [{ email: 'Ann@Example.com', password: 'ann@example.com' }, 400, /^The password must not contain your email/],
    [{ email: 'ann@example.com' }, 400, /Missing required field 'password'/],
    [{ email: 42, password: PASSWORD }, 400, /^The email address must be text of at most 320 characters\.$/],
    [[], 400, /JSON object/],
  ];
  for (const [payload, status, message] of cases) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/account/signup',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    assert.equal(response.statusCode, status, JSON.stringify(payload));
    assert.match(response.json().error, message);
  }
  const signup = await app.inject({
    method: 'POST',
    url: '/api/v1/account/signup',
    payload: { email: 'Ann@Example.com', password: PASSWORD, plan: 'pro', id: 'chosen-id' },
  });
  assert.equal(signup.statusCode, 201);
  assert.equal(signup.json().plan, 'free', 'unknown fields are dropped, never stored');
  const duplicate = await sessionClient(app).signup('ann@EXAMPLE.com ', 'another password');
  assert.equal(duplicate.statusCode, 409);
  assert.match(duplicate.json().error, /already exists/);
  const badJson = await app.inject({
    method: 'POST',
    url: '/api/v1/account/signup',
    headers: { 'content-type': 'application/json' },
    payload: '{"email":',
  });
  assert.equal(badJson.statusCode, 400);
  await close();
});
