// The keyed /api/v1/ipv6 benchmark scenario: every request carries one Free account's API key, so
// each one goes through the Bearer parse, the checksum, the lookup HMAC, the key cache (with its
// "changed elsewhere" check against SQLite) and the per-account limiter. Compare with `ipv6`.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKeyCache } from '../src/accounts/key-cache.ts';
import { createKeyService } from '../src/accounts/key-service.ts';
import { createKeyUsageRecorder } from '../src/accounts/key-usage.ts';
import { buildKeyring } from '../src/accounts/keyring.ts';
import { openSqliteRepository } from '../src/storage/sqlite.ts';
import type { ScenarioSetup } from './scenario-setup.ts';

export async function keyedScenarioSetup(): Promise<ScenarioSetup> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-bench-keyed-'));
  const masterKey = randomBytes(32);
  const repository = openSqliteRepository(path.join(dataDir, 'netinfo.db'));
  const account = {
    id: 'bench-account-01',
    email: 'bench@example.com',
    passwordHash: 'unused',
    plan: 'free' as const,
    createdAt: Date.now(),
    disabledAt: null,
  };
  await repository.createAccount(account);
  const usage = createKeyUsageRecorder({ repository, now: Date.now, onError: () => {} });
  const keys = createKeyService({
    repository,
    keyring: buildKeyring([{ version: 1, key: masterKey }]),
    cache: createKeyCache(),
    usage,
    now: Date.now,
  });
  const created = await keys.create(account, 'bench');
  await usage.close();
  await repository.close();
  if (!created.ok) throw new Error('could not create the benchmark key');
  const headers = { authorization: `Bearer ${created.key}` };
  return {
    // DATA_DIR stays the one the public scenario uses (same IP data), only the accounts differ.
    env: {
      DATABASE_URL: `sqlite:${path.join(dataDir, 'netinfo.db')}`,
      MASTER_KEY: masterKey.toString('base64'),
      RATE_LIMITS: 'public=1000000000/1000000000,free=1000000000/1000000000',
    },
    requests: [{ method: 'GET', path: '/api/v1/ipv6', headers }],
    describe: "every request carries one Free account's API key",
    async verify(url) {
      const response = await fetch(`${url}/api/v1/ipv6`, { headers });
      if (response.status !== 200 || response.headers.get('x-ratelimit-limit') !== '1000000000') {
        throw new Error(`the key was not accepted on the Free tier: ${response.status}`);
      }
    },
    close: () => rm(dataDir, { recursive: true, force: true }),
  };
}
