import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runAdminCommand } from '../../src/accounts/admin-commands.ts';
import { buildKeyring } from '../../src/accounts/keyring.ts';
import { parseMasterKeys } from '../../src/accounts/master-key.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';

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

test('rotating the master key: old keys keep working throughout, then live under the new version only', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-rotation-'));
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const call = async (masterKey: string, keys: string[]) => {
    const app = await buildTestApp({ DATA_DIR: dataDir, MASTER_KEY: masterKey });
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
  try {
    // 1. Keys made under the old master key.
    const app = await buildTestApp({ DATA_DIR: dataDir, MASTER_KEY: oldKey });
    const session = sessionClient(app);
    await session.signup('rotate@example.com', PASSWORD);
    const first = (await session.createKey('one')).json().key;
    const second = (await session.createKey('two')).json().key;
    await app.close();

    // 2. Both versions configured: old keys verify under v1, new ones are made under v2.
    const both = `v2:${newKey},v1:${oldKey}`;
    assert.deepEqual(await call(both, [first, second]), [200, 200]);

    // 3. The admin command re-encrypts and re-hashes every key under v2.
    const repository = openSqliteRepository(path.join(dataDir, 'netinfo.db'));
    const lines: string[] = [];
    const code = await runAdminCommand(['rotate-keys'], {
      repository,
      now: Date.now,
      print: (line) => lines.push(line),
      keyring: buildKeyring(parseMasterKeys(both, 'MASTER_KEY')),
    });
    assert.equal(code, 0, lines.join('\n'));
    assert.match(lines[0] ?? '', /re-encrypted 2 keys under master key version 2/);
    assert.deepEqual(
      (await repository.listKeysNotAtVersion(2)).map((key) => key.id),
      [],
    );
    await repository.close();

    // 4. The old master key can go: every key verifies under the new one alone.
    assert.deepEqual(await call(`v2:${newKey}`, [first, second]), [200, 200]);
    // And without the new key nothing verifies any more: the rotation really happened.
    assert.deepEqual(await call(oldKey, [first, second]), [401, 401]);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
