import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { generateApiKey } from '../../src/accounts/api-key-format.ts';
import type { AccountRepository } from '../../src/storage/repository.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { manualClock } from '../support/app.ts';

const ipv6With = (app: Awaited<ReturnType<typeof buildAccountsApp>>['app'], key: string) =>
  app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });

test('lifecycle: sign up, log in, keys up to the quota, Free headers per key, revoke, 401', async () => {
  const { app, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  const signup = await browser.signup('  Ann@Example.COM ', PASSWORD);
  assert.equal(signup.statusCode, 201);
  assert.deepEqual(Object.keys(signup.json()).sort(), ['csrf_token', 'email', 'plan']);
  assert.equal(signup.json().email, 'ann@example.com');
  assert.equal(signup.json().plan, 'free');
  assert.equal((await browser.logout()).statusCode, 204);
  assert.equal((await browser.account()).statusCode, 401);
  assert.equal((await browser.login('ann@example.com', PASSWORD)).statusCode, 200);

  const keys: { id: string; key: string; created_at: string }[] = [];
  for (let index = 1; index <= 5; index++) {
    const created = await browser.createKey(`key ${index}`);
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    const body = created.json();
    assert.match(body.key, /^nk_[0-9A-Za-z]{36}$/);
    assert.equal(body.prefix, body.key.slice(0, 9));
    assert.equal(body.name, `key ${index}`);
    assert.equal(body.last_used_at, null);
    keys.push(body);
  }
  for (const disguised of ['\u202egnp.exe', 'zero\u200bwidth', 'bell\u0007']) {
    const refused = await browser.createKey(disguised);
    assert.equal(refused.statusCode, 400, JSON.stringify(disguised));
    assert.match(refused.json().error, /^The key name must be 1 to 64 characters, without control or invisible/);
  }
  const sixth = await browser.createKey('one too many');
  assert.equal(sixth.statusCode, 403);
  assert.equal(sixth.json().quota, 5);
  assert.match(sixth.json().error, /free plan allows 5 active API keys/);

  for (const [index, { key }] of keys.entries()) {
    const response = await ipv6With(app, key);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-ratelimit-limit'], '1000', 'the Free tier');
    assert.equal(response.headers['x-ratelimit-remaining'], String(999 - index), 'counted per account, not per key');
  }

  const account = (await browser.account()).json();
  assert.equal(account.plan, 'free');
  assert.deepEqual(account.limits, { hourly: 1000, daily: 10_000 });
  assert.equal(account.usage.hourly.used, 5);
  assert.equal(account.usage.daily.used, 5);
  assert.deepEqual(account.keys, { active: 5, quota: 5 });
  assert.equal(account.csrf_token, browser.state.csrf);

  const listed = (await browser.listKeys()).json().keys;
  // Oldest first; keys made in the same millisecond (this loop makes them that fast) by id.
  const oldestFirst = [...keys].sort((a, b) =>
    a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1,
  );
  assert.deepEqual(
    listed.map((key: { id: string }) => key.id),
    oldestFirst.map((key) => key.id),
  );
  for (const key of listed) {
    assert.equal(key.key, undefined, 'a listing never carries the key');
    assert.ok(key.last_used_at, 'last use is shown before it is written');
  }

  const [revoked, kept] = keys as [(typeof keys)[0], (typeof keys)[0]];
  assert.equal((await browser.revokeKey(revoked.id)).statusCode, 204);
  const refused = await ipv6With(app, revoked.key);
  assert.equal(refused.statusCode, 401);
  assert.match(refused.json().error, /unknown or revoked/);
  assert.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"');
  const neverExisted = await ipv6With(app, generateApiKey());
  assert.equal(neverExisted.body, refused.body, 'a revoked key and one that never existed get the same body');
  assert.equal(neverExisted.headers['www-authenticate'], refused.headers['www-authenticate']);
  assert.equal((await ipv6With(app, kept.key)).statusCode, 200);
  assert.equal((await browser.revokeKey(revoked.id)).statusCode, 404, 'already revoked');
  assert.equal((await browser.createKey('replacement')).statusCode, 201, 'revoking freed a slot');
  await close();
});

test("one account cannot list or revoke another's keys", async () => {
  const { app, close } = await buildAccountsApp();
  const ann = sessionClient(app);
  const bob = sessionClient(app);
  await ann.signup('ann@example.com', PASSWORD);
  await bob.signup('bob@example.com', PASSWORD);
  const annKey = (await ann.createKey('ann')).json();
  assert.equal((await bob.revokeKey(annKey.id)).statusCode, 404);
  assert.deepEqual((await bob.listKeys()).json().keys, []);
  assert.equal((await ipv6With(app, annKey.key)).statusCode, 200);
  assert.equal((await bob.revokeKey('not-an-id')).statusCode, 404);
  await close();
});

test('malformed keys and bad checksums are refused without touching storage; unknown keys are looked up', async () => {
  let lookups = 0;
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-lookups-'));
  const inner = openSqliteRepository(path.join(dir, 'netinfo.db'));
  const counting: AccountRepository = {
    ...inner,
    findKeyOwner: (hash) => {
      lookups++;
      return inner.findKeyOwner(hash);
    },
  };
  const { app: counted, close: closeCounted } = await buildAccountsApp({}, { accountRepository: counting });
  const valid = generateApiKey();
  const badChecksum = `${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`;
  for (const authorization of ['Bearer nk_short', `Bearer ${badChecksum}`, `Basic ${valid}`, 'Bearer', '']) {
    const response = await counted.inject({ url: '/api/v1/ipv6', headers: { authorization } });
    assert.equal(response.statusCode, 401, authorization);
  }
  assert.equal(lookups, 0);
  assert.equal((await ipv6With(counted, valid)).statusCode, 401, 'well-formed but unknown');
  assert.equal(lookups, 1);
  await closeCounted();
  await rm(dir, { recursive: true, force: true });
});

test('issue 18: every 401 challenges with WWW-Authenticate: Bearer and an RFC 6750 error, and says which check failed', async () => {
  const { app, close } = await buildAccountsApp();
  const valid = generateApiKey();
  const badChecksum = `${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`;
  const cases = [
    {
      authorization: valid,
      error: 'invalid_request',
      message: /send the key as `Authorization: Bearer <key>`/,
      why: 'the key without the Bearer prefix',
    },
    { authorization: `Basic ${valid}`, error: 'invalid_request', message: /not a Bearer key/, why: 'another scheme' },
    { authorization: 'Bearer', error: 'invalid_request', message: /not a Bearer key/, why: 'the scheme without a key' },
    {
      authorization: `Bearer ${valid} ${valid}`,
      error: 'invalid_request',
      message: /not a Bearer key/,
      why: 'two tokens',
    },
    { authorization: 'Bearer nk_short', error: 'invalid_token', message: /malformed/, why: 'too short' },
    {
      authorization: `Bearer ${badChecksum}`,
      error: 'invalid_token',
      message: /malformed.*checksum/,
      why: 'a typo: the checksum fails',
    },
    {
      authorization: `Bearer ${valid}`,
      error: 'invalid_token',
      message: /unknown or revoked/,
      why: 'well-formed, never issued',
    },
  ];
  for (const { authorization, error, message, why } of cases) {
    const response = await app.inject({ url: '/api/v1/ipv6', headers: { authorization } });
    assert.equal(response.statusCode, 401, why);
    assert.equal(response.headers['www-authenticate'], `Bearer error="${error}"`, why);
    assert.match(response.json().error, message, why);
  }
  await close();
});

test('keyed requests count per account across its keys, and 429 names the Free limit', async () => {
  const { app, close } = await buildAccountsApp({ RATE_LIMITS: 'free=3/10' });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const first = (await browser.createKey('a')).json().key;
  const second = (await browser.createKey('b')).json().key;
  assert.equal((await ipv6With(app, first)).statusCode, 200);
  assert.equal((await ipv6With(app, second)).statusCode, 200);
  assert.equal((await ipv6With(app, first)).statusCode, 200);
  const refused = await ipv6With(app, second);
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.json().limit, 3);
  // Public traffic from the same address is counted apart.
  assert.equal((await app.inject({ url: '/api/v1/ipv6' })).statusCode, 200);
  await close();
});

test('last-used times are written in batches and at shutdown, not per request', async () => {
  const clock = manualClock('2026-05-01T12:00:00Z');
  const { app, dataDir, close } = await buildAccountsApp({}, { now: clock.now });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const created = (await browser.createKey('a')).json();
  clock.set('2026-05-01T12:30:00Z');
  for (let i = 0; i < 20; i++) await ipv6With(app, created.key);
  const before = openSqliteRepository(path.join(dataDir, 'netinfo.db'));
  const [unwritten] = await before.listActiveKeys((await before.findAccountByEmail('ann@example.com'))?.id ?? '');
  assert.equal(unwritten?.lastUsedAt, null, 'nothing written yet');
  assert.equal((await browser.listKeys()).json().keys[0].last_used_at, '2026-05-01T12:30:00.000Z');
  await app.close();
  const [written] = await before.listActiveKeys(unwritten?.accountId ?? '');
  assert.equal(written?.lastUsedAt, Date.parse('2026-05-01T12:30:00Z'));
  await before.close();
  await close();
});

test('account endpoints keep their own limits, apart from the tier limits', async () => {
  const { app, close } = await buildAccountsApp({ RATE_LIMITS: 'public=2/2' });
  for (let i = 0; i < 5; i++) {
    const response = await app.inject({ url: '/api/v1/account' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['x-ratelimit-limit'], '300', 'the account API limit, not the public tier');
  }
  assert.equal((await app.inject({ url: '/api/v1/ipv6' })).headers['x-ratelimit-remaining'], '1');
  // Unknown paths under the prefix count against the account limit too; nothing else does.
  const unknown = await app.inject({ method: 'POST', url: '/api/v1/account/nothing-here' });
  assert.equal(unknown.statusCode, 404);
  assert.match(unknown.json().error, /No endpoint POST \/api\/v1\/account\/nothing-here/);
  assert.equal(unknown.headers['x-ratelimit-limit'], '300');
  assert.equal(unknown.headers['x-ratelimit-remaining'], '294', 'the sixth account API request');
  assert.equal((await app.inject({ url: '/api/v1/account' })).headers['x-ratelimit-remaining'], '293');
  await close();
});
