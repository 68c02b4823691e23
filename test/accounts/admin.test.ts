import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ADMIN_USAGE, runAdminCommand } from '../../src/accounts/admin-commands.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The admin command as an operator runs it: another process, on the same database file. */
function admin(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, ['src/admin.ts', ...args], {
    cwd: repoRoot,
    // DATABASE_URL cleared: a CI run may export one for other suites; this test uses DATA_DIR's SQLite.
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', DNS_SERVERS: '127.0.0.1:9' },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('admin plan/disable/enable reach the running service on the next request', async () => {
  const { app, dataDir, close } = await buildAccountsApp();
  const ann = sessionClient(app);
  await ann.signup('ann@example.com', PASSWORD);
  const { key } = (await ann.createKey('k')).json();
  const call = () => app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });
  assert.equal((await call()).headers['x-ratelimit-limit'], '1000', 'Free, and now cached');

  const plan = admin(dataDir, 'plan', 'ANN@example.com', 'pro');
  assert.equal(plan.status, 0, plan.output);
  assert.match(plan.output, /ann@example.com: plan free -> pro/);
  assert.equal((await call()).headers['x-ratelimit-limit'], '10000', 'Pro on the very next request');
  const account = (await ann.account()).json();
  assert.equal(account.plan, 'pro');
  assert.deepEqual(account.keys, { active: 1, quota: 20 });

  const disable = admin(dataDir, 'disable', 'ann@example.com');
  assert.equal(disable.status, 0, disable.output);
  const refused = await call();
  assert.equal(refused.statusCode, 401, 'keys refused at once');
  assert.match(refused.json().error, /account is disabled/, 'the holder of a real key is told why (issue 18)');
  assert.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"');
  const signedOut = await ann.account();
  assert.equal(signedOut.statusCode, 401, 'sessions ended');
  // A session 401 challenges too (RFC 9110), but not with Bearer: a key does not open the account API.
  assert.equal(signedOut.headers['www-authenticate'], 'Cookie realm="netinfo", form-action="/api/v1/account/login"');
  const wrongPassword = await ann.login('ann@example.com', 'wrong password');
  assert.equal(wrongPassword.statusCode, 401);
  assert.equal(wrongPassword.headers['www-authenticate'], signedOut.headers['www-authenticate']);
  const login = await ann.login('ann@example.com', PASSWORD);
  assert.equal(login.statusCode, 403, 'only the right password learns the account is disabled');
  assert.match(login.json().error, /disabled/);

  assert.equal(admin(dataDir, 'enable', 'ann@example.com').status, 0);
  assert.equal((await call()).statusCode, 200, 'the same key works again');

  const list = admin(dataDir, 'list');
  assert.equal(list.status, 0);
  assert.match(list.output, /^email\s+plan\s+status\s+keys\s+created \(UTC\)\s+last key use \(UTC\)$/m);
  assert.match(list.output, /^ann@example\.com\s+pro\s+active\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+/m);
  assert.match(list.output, /^1 account$/m);
  await close();
});

test('admin: unknown emails, plans and commands are refused with exit code 1', async () => {
  const { app, dataDir, close } = await buildAccountsApp();
  await sessionClient(app).signup('ann@example.com', PASSWORD);
  const repository = openSqliteRepository(path.join(dataDir, 'netinfo.db'));
  const run = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runAdminCommand(args, { repository, now: Date.now, print: (line) => lines.push(line) });
    return { code, text: lines.join('\n') };
  };
  assert.deepEqual(await run('plan', 'nobody@example.com', 'pro'), {
    code: 1,
    text: 'no account with the email nobody@example.com',
  });
  assert.deepEqual(await run('plan', 'ann@example.com', 'gold'), {
    code: 1,
    text: 'the plan must be one of free, pro',
  });
  for (const args of [[], ['frobnicate'], ['plan', 'ann@example.com'], ['disable'], ['list', 'extra']]) {
    assert.deepEqual(await run(...args), { code: 1, text: ADMIN_USAGE }, args.join(' '));
  }
  assert.equal((await repository.findAccountByEmail('ann@example.com'))?.plan, 'free');
  await repository.close();
  const usage = admin(dataDir);
  assert.equal(usage.status, 1);
  assert.match(usage.output, /usage: npm run admin/);
  await close();
});

test('admin: a DATA_DIR without the database is an error, not a new empty database', () => {
  const missing = mkdtempSync(path.join(tmpdir(), 'admin-'));
  try {
    const list = admin(path.join(missing, 'typo'), 'list');
    assert.equal(list.status, 1);
    assert.match(list.output, /no account database at .*typo\/netinfo\.db: run this with the service's DATA_DIR/);
    assert.equal(existsSync(path.join(missing, 'typo')), false, 'nothing created');
  } finally {
    rmSync(missing, { recursive: true, force: true });
  }
});
