import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runAdminCommand } from '../../src/accounts/admin-commands.ts';
import { buildKeyring } from '../../src/accounts/keyring.ts';
import { parseMasterKeys } from '../../src/accounts/master-key.ts';
import type { AccountRepository } from '../../src/storage/repository.ts';
import { PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { signedBy, startWebhookReceiver } from '../support/webhook-receiver.ts';

test('MASTER_KEY versions: one key is version 1; lists go newest first, without repeats', () => {
  const a = randomBytes(32).toString('base64');
  const b = randomBytes(32).toString('base64');
  assert.deepEqual(
    parseMasterKeys(a, 'MASTER_KEY').map((entry) => entry.version),
    [1],
  );
  assert.deepEqual(
    parseMasterKeys(`v2:${b}, v1:${a}`, 'MASTER_KEY').map((entry) => entry.version),
    [2, 1],
  );
  assert.throws(() => parseMasterKeys(`v1:${a},v2:${b}`, 'MASTER_KEY'), /first entry must be the newest/);
  assert.throws(() => parseMasterKeys(`v2:${a},v2:${b}`, 'MASTER_KEY'), /listed twice/);
  assert.throws(
    () => parseMasterKeys(`v2:${a},${b}`, 'MASTER_KEY'),
    (error: Error) => /entry 2 must be v<version>/.test(error.message) && !error.message.includes(b),
  );
});

/** The site a monitor watches: its status is the test's to set. */
async function watchedSite() {
  let status = 200;
  const server = createServer((_request, response) => response.writeHead(status).end('hello'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    set: (next: number) => {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('rotating the master key: old API keys and monitors keep working throughout, then live under the new version only', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-rotation-'));
  const site = await watchedSite();
  const hooks = await startWebhookReceiver();
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const env = (masterKey: string) => ({
    DATA_DIR: dataDir,
    MASTER_KEY: masterKey,
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
  });
  const call = async (masterKey: string, keys: string[]) => {
    const app = await buildTestApp(env(masterKey));
    try {
      const statuses = [];
      for (const key of keys) {
        statuses.push(
          (await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } })).statusCode,
        );
      }
      return statuses;
    } finally {
      await app.close();
    }
  };
  const readiness = async (masterKey: string) => {
    const app = await buildTestApp(env(masterKey));
    try {
      // The checks run as the app starts; a few turns for SQLite to answer.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return (await app.inject({ url: '/readyz' })).json().checks;
    } finally {
      await app.close();
    }
  };
  // The admin command as an operator runs it: another process, on the same database file.
  const rotateKeys = (masterKey: string) =>
    spawnSync(process.execPath, ['src/admin.ts', 'rotate-keys'], {
      cwd: path.resolve(import.meta.dirname, '..', '..'),
      env: { ...process.env, DATABASE_URL: '', DNS_SERVERS: '127.0.0.1:9', DATA_DIR: dataDir, MASTER_KEY: masterKey },
      encoding: 'utf8',
    });
  try {
    // 1. Keys and a monitor with a webhook, made under the old master key.
    const app = await buildTestApp(env(oldKey));
    const session = sessionClient(app);
    await session.signup('rotate@example.com', PASSWORD);
    const first = (await session.createKey('one')).json().key;
    const second = (await session.createKey('two')).json().key;
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/monitors',
      headers: { cookie: session.state.cookie, 'x-csrf-token': session.state.csrf },
      payload: {
        name: 'site',
        type: 'http',
        target: site.url,
        interval_seconds: 1,
        conditions: { status_not: [200] },
        notify: { webhooks: [hooks.url('/site')] },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const secret = created.json().webhook_secret;
    await app.close();

    // Without the old version, /readyz says what would fail, for the keys and for the webhooks.
    const stranded = await readiness(`v2:${newKey}`);
    assert.equal(stranded.accounts.state, 'degraded');
    assert.equal(stranded.monitors.state, 'degraded');
    assert.match(
      stranded.monitors.detail,
      /monitors' webhook secrets are under master key version 1, which MASTER_KEY does not hold: those monitors send no webhooks/,
    );

    // 2. Both versions configured: old keys verify under v1, new ones are made under v2.
    const both = `v2:${newKey},v1:${oldKey}`;
    assert.deepEqual(await call(both, [first, second]), [200, 200]);

    // 3. The admin command re-encrypts the keys (and re-hashes them) and the webhook secret under v2.
    const rotated = rotateKeys(both);
    assert.equal(rotated.status, 0, rotated.stdout + rotated.stderr);
    assert.deepEqual(rotated.stdout.trim().split('\n'), [
      're-encrypted 2 keys under master key version 2',
      're-encrypted 1 webhook secret under master key version 2',
    ]);
    const again = rotateKeys(both);
    assert.match(again.stdout, /re-encrypted 0 keys .*\n.*re-encrypted 0 webhook secrets/, 'safe to run again');

    // 4. The old master key can go: every key verifies under the new one alone, and the monitor
    // still signs its webhooks with the secret shown at its creation.
    assert.deepEqual(await call(`v2:${newKey}`, [first, second]), [200, 200]);
    const rotatedChecks = await readiness(`v2:${newKey}`);
    assert.deepEqual([rotatedChecks.accounts, rotatedChecks.monitors], [{ state: 'ready' }, { state: 'ready' }]);
    const after = await buildTestApp(env(`v2:${newKey}`));
    try {
      await after.ready(); // the scheduler starts with the app
      site.set(503);
      const [down] = await hooks.waitFor(1);
      assert.equal(JSON.parse(down?.body ?? '{}').event, 'monitor.down');
      assert.ok(signedBy(secret, String(down?.headers['x-netinfo-signature']), down?.body ?? ''), 'signed as before');
    } finally {
      await after.close();
    }
    // And without the new key nothing verifies any more: the rotation really happened.
    assert.deepEqual(await call(oldKey, [first, second]), [401, 401]);
  } finally {
    await Promise.all([site.close(), hooks.close()]);
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('rotate-keys names what it could not rotate and exits 1: a monitor whose version is missing', async () => {
  const a = buildKeyring(parseMasterKeys(`v3:${randomBytes(32).toString('base64')}`, 'MASTER_KEY'));
  const stranded = { keyVersion: 1, nonce: 'bg==', ciphertext: 'Yw==', tag: 'dA==' };
  const replaced: string[] = [];
  const lines: string[] = [];
  const repository = { listKeysNotAtVersion: async () => [] } as unknown as AccountRepository;
  const code = await runAdminCommand(['rotate-keys'], {
    repository,
    now: Date.now,
    print: (line) => lines.push(line),
    keyring: a,
    webhookSecrets: {
      listSecretsNotAtVersion: async () => [{ id: 'mon-1', secret: stranded }],
      replaceSecret: async (id) => {
        replaced.push(id);
        return true;
      },
      aad: (id) => `monitor:${id}`,
    },
  });
  assert.equal(code, 1);
  assert.deepEqual(lines, [
    're-encrypted 0 keys under master key version 3',
    're-encrypted 0 webhook secrets under master key version 3',
    'not rotated: the webhook secret of monitor mon-1: master key version 1 is not in MASTER_KEY',
  ]);
  assert.deepEqual(replaced, []);
});
