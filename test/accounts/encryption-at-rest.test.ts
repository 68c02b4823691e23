import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { decryptApiKey, deriveKeyMaterial, lookupHash } from '../../src/accounts/key-crypto.ts';
import { parseMasterKey } from '../../src/accounts/master-key.ts';
import type { EncryptedSecret } from '../../src/storage/repository.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { captureLog } from '../support/log-capture.ts';

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every encoding a careless implementation might have stored a key in. */
function encodings(key: string): Buffer[] {
  const body = key.slice(3);
  return [
    Buffer.from(key),
    Buffer.from(body),
    Buffer.from(key, 'utf16le'),
    Buffer.from(Buffer.from(key).toString('base64')),
    Buffer.from(Buffer.from(key).toString('hex')),
  ];
}

async function assertNoPlaintext(directory: string, keys: readonly string[]) {
  const files = await filesUnder(directory);
  assert.ok(files.some((file) => file.endsWith('netinfo.db')));
  for (const file of files) {
    const content = await readFile(file);
    for (const key of keys) {
      for (const needle of encodings(key)) {
        assert.equal(content.indexOf(needle), -1, `${path.basename(file)} holds ${key} (${needle.length} bytes)`);
      }
    }
  }
  return files;
}

interface KeyRow {
  id: string;
  lookup_hash: string;
  key_version: number;
  nonce: string;
  ciphertext: string;
  tag: string;
}

const secretOf = (row: KeyRow): EncryptedSecret => ({
  keyVersion: row.key_version,
  nonce: row.nonce,
  ciphertext: row.ciphertext,
  tag: row.tag,
});

function flipByte(base64: string, index: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[index % bytes.length] = (bytes[index % bytes.length] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

test('encryption at rest: no plaintext key in the data directory; ciphertexts decrypt with the master key and no other', async () => {
  const written = captureLog();
  const { app, dataDir, close } = await buildAccountsApp({ LOG_LEVEL: 'trace' }, { logStream: written.stream });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const created = [];
  for (let index = 0; index < 5; index++) created.push((await browser.createKey(`key ${index}`)).json());
  const keys = created.map((entry) => entry.key as string);
  for (const key of keys) await app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });

  // While running (the WAL holds the recent pages) and after a clean shutdown (checkpointed).
  await assertNoPlaintext(dataDir, keys);
  await app.close();
  const files = await assertNoPlaintext(dataDir, keys);
  assert.deepEqual(files.map((file) => path.basename(file)).sort(), ['master.key', 'netinfo.db']);

  // The master key was generated privately, and its creation was logged once (without the key).
  const masterKeyFile = path.join(dataDir, 'master.key');
  assert.equal((await stat(masterKeyFile)).mode & 0o777, 0o600);
  const masterKeyText = (await readFile(masterKeyFile, 'utf8')).trim();
  const log = written.text();
  const generated = log.split('\n').filter((line) => line.includes('generated a new master key'));
  assert.equal(generated.length, 1);
  assert.match(generated[0] ?? '', /master\.key/);
  assert.ok(!log.includes(masterKeyText), 'the master key is never logged');
  for (const key of keys) assert.ok(!log.includes(key.slice(3)), 'no API key is logged');
  assert.ok(!log.includes(PASSWORD), 'no password is logged');
  assert.ok(!log.includes(browser.state.cookie.split('=')[1] ?? 'none'), 'no session id is logged');

  const material = deriveKeyMaterial(parseMasterKey(masterKeyText, 'master.key'));
  const db = new DatabaseSync(path.join(dataDir, 'netinfo.db'), { readOnly: true });
  const rows = db.prepare('SELECT * FROM api_keys ORDER BY created_at').all() as unknown as KeyRow[];
  db.close();
  assert.equal(rows.length, 5);
  for (const [index, row] of rows.entries()) {
    const key = keys[index] ?? '';
    assert.equal(row.id, created[index].id);
    assert.equal(row.key_version, 1);
    assert.equal(Buffer.from(row.nonce, 'base64').length, 12, '96-bit nonce');
    assert.equal(Buffer.from(row.tag, 'base64').length, 16, '128-bit tag');
    assert.equal(decryptApiKey(material, row.id, secretOf(row)), key);
    assert.equal(row.lookup_hash, lookupHash(material, key));
  }
  assert.equal(new Set(rows.map((row) => row.nonce)).size, rows.length, 'a fresh nonce per key');

  const row = rows[0] as KeyRow;
  for (const field of ['ciphertext', 'tag', 'nonce'] as const) {
    for (const index of [0, 5, 11]) {
      const tampered = { ...secretOf(row), [field]: flipByte(row[field], index) };
      assert.throws(() => decryptApiKey(material, row.id, tampered), /unable to authenticate|Unsupported state/, field);
    }
  }
  assert.throws(
    () => decryptApiKey(material, (rows[1] as KeyRow).id, secretOf(row)),
    /unable to authenticate/,
    'another row id (AAD)',
  );
  assert.throws(
    () => decryptApiKey(deriveKeyMaterial(randomBytes(32)), row.id, secretOf(row)),
    /unable to authenticate/,
    'another master key',
  );
  assert.throws(() => decryptApiKey(material, row.id, { ...secretOf(row), keyVersion: 2 }), /version 2/);
  await close();
});

test('MASTER_KEY from the environment is used, and no key file is written', async () => {
  const masterKey = randomBytes(32);
  const { app, dataDir, close } = await buildAccountsApp({ MASTER_KEY: masterKey.toString('base64') });
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const created = (await browser.createKey('k')).json();
  await app.close();
  assert.deepEqual(
    (await filesUnder(dataDir)).map((file) => path.basename(file)),
    ['netinfo.db'],
  );
  const db = new DatabaseSync(path.join(dataDir, 'netinfo.db'), { readOnly: true });
  const row = db.prepare('SELECT * FROM api_keys').get() as unknown as KeyRow;
  db.close();
  assert.equal(decryptApiKey(deriveKeyMaterial(masterKey), row.id, secretOf(row)), created.key);
  await close();
});

test('a restart keeps the generated master key, so keys stay valid', async () => {
  const { app, dataDir, close } = await buildAccountsApp();
  const browser = sessionClient(app);
  await browser.signup('ann@example.com', PASSWORD);
  const { key } = (await browser.createKey('k')).json();
  await app.close();
  const { buildTestApp } = await import('../support/app.ts');
  const restarted = await buildTestApp({ DATA_DIR: dataDir });
  const response = await restarted.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-ratelimit-limit'], '1000');
  await restarted.close();
  await close();
});

test('a MASTER_KEY that cannot verify the stored keys is reported by /readyz, not found out by 401s', async () => {
  const original = randomBytes(32).toString('base64');
  const first = await buildAccountsApp({ MASTER_KEY: original });
  const session = sessionClient(first.app);
  await session.signup('keys@example.com', PASSWORD);
  assert.equal((await session.createKey('one')).statusCode, 201);
  await first.app.close();
  const accountsCheck = async (masterKey: string) => {
    const again = await buildTestApp({ DATA_DIR: first.dataDir, MASTER_KEY: masterKey });
    try {
      // The check runs as the app starts; a few turns for SQLite to answer.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return (await again.inject({ url: '/readyz' })).json().checks.accounts;
    } finally {
      await again.close();
    }
  };
  try {
    assert.deepEqual(await accountsCheck(original), { state: 'ready' });
    const fresh = await accountsCheck(randomBytes(32).toString('base64'));
    assert.equal(fresh.state, 'degraded');
    assert.match(fresh.detail, /MASTER_KEY version 1 does not decrypt the stored API keys/);
    const onlyNew = await accountsCheck(`v2:${randomBytes(32).toString('base64')}`);
    assert.equal(onlyNew.state, 'degraded');
    assert.match(onlyNew.detail, /under master key version 1, which MASTER_KEY does not hold/);
    assert.deepEqual(await accountsCheck(`v2:${randomBytes(32).toString('base64')},v1:${original}`), {
      state: 'ready',
    });
  } finally {
    await first.close();
  }
});

test('a malformed MASTER_KEY stops startup with a message that does not repeat it', async () => {
  const { loadConfig } = await import('../../src/config.ts');
  assert.throws(
    () => loadConfig({ MASTER_KEY: 'c2hvcnQtYW5kLXNlY3JldA==' }),
    (error: Error) => {
      assert.match(error.message, /MASTER_KEY: the value must be base64 of 32 bytes, it decodes to 16/);
      assert.doesNotMatch(error.message, /c2hvcnQ/);
      return true;
    },
  );
});
