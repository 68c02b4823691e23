import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AccountRecord, AccountRepository, ApiKeyRecord } from '../../src/storage/repository.ts';

/**
 * What every AccountRepository must do, written once and run against each implementation (SQLite
 * here; PostgreSQL with the scale-out work). `open` gives an empty, migrated database.
 */
export function repositoryContract(
  engine: string,
  open: () => Promise<{ repository: AccountRepository; cleanup: () => Promise<void> }>,
): void {
  const withRepository = (name: string, body: (repository: AccountRepository) => Promise<void>) =>
    test(`${engine} repository: ${name}`, async () => {
      const { repository, cleanup } = await open();
      try {
        await body(repository);
      } finally {
        await repository.close();
        await cleanup();
      }
    });

  let serial = 0;
  const account = (overrides: Partial<AccountRecord> = {}): AccountRecord => {
    serial++;
    return {
      id: `acct-${serial}`.padEnd(16, 'x'),
      email: `user${serial}@example.com`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      plan: 'free',
      createdAt: 1_000 + serial,
      disabledAt: null,
      ...overrides,
    };
  };
  const key = (accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => {
    serial++;
    return {
      id: `key-${serial}`.padEnd(16, 'y'),
      accountId,
      name: `key ${serial}`,
      displayPrefix: 'nk_abcdef',
      lookupHash: `hash-${serial}`,
      secret: { keyVersion: 1, nonce: 'bm9uY2U=', ciphertext: 'Y2lwaGVy', tag: 'dGFn' },
      createdAt: 2_000 + serial,
      lastUsedAt: null,
      revokedAt: null,
      ...overrides,
    };
  };

  withRepository('accounts are found by email and id; a taken email is refused', async (repository) => {
    const ann = account({ email: 'ann@example.com' });
    assert.equal(await repository.createAccount(ann), 'created');
    assert.deepEqual(await repository.findAccountByEmail('ann@example.com'), ann);
    assert.deepEqual(await repository.findAccountById(ann.id), ann);
    assert.equal(await repository.createAccount(account({ email: 'ann@example.com' })), 'duplicate-email');
    assert.equal(await repository.findAccountByEmail('nobody@example.com'), undefined);
  });

  withRepository('concurrent sign-ups with one email: exactly one wins', async (repository) => {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => repository.createAccount(account({ email: 'race@example.com' }))),
    );
    assert.equal(outcomes.filter((outcome) => outcome === 'created').length, 1);
  });

  withRepository('plan, disabled and password hash are updated', async (repository) => {
    const ann = account();
    await repository.createAccount(ann);
    await repository.setPlan(ann.id, 'pro');
    await repository.setDisabled(ann.id, 5_000);
    await repository.updatePasswordHash(ann.id, 'new-hash');
    assert.deepEqual(await repository.findAccountById(ann.id), {
      ...ann,
      plan: 'pro',
      disabledAt: 5_000,
      passwordHash: 'new-hash',
    });
    await repository.setDisabled(ann.id, null);
    assert.equal((await repository.findAccountById(ann.id))?.disabledAt, null);
  });

  withRepository('sessions: create, touch, delete, expire, and go with their account', async (repository) => {
    const ann = account();
    const bob = account();
    await repository.createAccount(ann);
    await repository.createAccount(bob);
    const session = { idHash: 'h1', accountId: ann.id, createdAt: 10, lastSeenAt: 10, expiresAt: 100 };
    await repository.createSession(session);
    await repository.createSession({ ...session, idHash: 'h2', expiresAt: 50 });
    await repository.createSession({ ...session, idHash: 'h3', accountId: bob.id, expiresAt: 500 });
    assert.deepEqual(await repository.findSession('h1'), session);
    await repository.touchSession('h1', 40, 140);
    assert.deepEqual(await repository.findSession('h1'), { ...session, lastSeenAt: 40, expiresAt: 140 });
    assert.equal(await repository.deleteExpiredSessions(60), 1);
    assert.equal(await repository.findSession('h2'), undefined);
    await repository.deleteSession('h1');
    assert.equal(await repository.findSession('h1'), undefined);
    await repository.deleteSessionsOfAccount(bob.id);
    assert.equal(await repository.findSession('h3'), undefined);
  });

  withRepository('sessions need an existing account (foreign key)', async (repository) => {
    await assert.rejects(
      repository.createSession({
        idHash: 'x',
        accountId: 'no-such-account',
        createdAt: 1,
        lastSeenAt: 1,
        expiresAt: 2,
      }),
      /foreign key/i,
    );
  });

  withRepository('keys: created within the quota, listed oldest first, owner found by hash', async (repository) => {
    const ann = account();
    await repository.createAccount(ann);
    const first = key(ann.id, { createdAt: 10 });
    const second = key(ann.id, { createdAt: 20 });
    assert.equal(await repository.createKeyWithinQuota(second, 2), 'created');
    assert.equal(await repository.createKeyWithinQuota(first, 2), 'created');
    assert.equal(await repository.createKeyWithinQuota(key(ann.id), 2), 'quota-reached');
    assert.deepEqual(await repository.listActiveKeys(ann.id), [first, second]);
    assert.equal(await repository.countActiveKeys(ann.id), 2);
    assert.deepEqual(await repository.findKeyOwner(first.lookupHash), {
      keyId: first.id,
      accountId: ann.id,
      plan: 'free',
      disabled: false,
    });
    assert.equal(await repository.findKeyOwner('unknown'), undefined);
  });

  withRepository('concurrent key creation at the quota edge: exactly the quota succeeds', async (repository) => {
    const ann = account();
    await repository.createAccount(ann);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () => repository.createKeyWithinQuota(key(ann.id), 5)),
    );
    assert.equal(outcomes.filter((outcome) => outcome === 'created').length, 5);
    assert.equal(await repository.countActiveKeys(ann.id), 5);
  });

  withRepository(
    'revoking: only the owner, only once; revoked keys leave the quota and lookups',
    async (repository) => {
      const ann = account();
      const bob = account();
      await repository.createAccount(ann);
      await repository.createAccount(bob);
      const annKey = key(ann.id);
      await repository.createKeyWithinQuota(annKey, 1);
      assert.equal(await repository.revokeKey(bob.id, annKey.id, 50), false, "bob cannot revoke ann's key");
      assert.equal(await repository.revokeKey(ann.id, annKey.id, 50), true);
      assert.equal(await repository.revokeKey(ann.id, annKey.id, 60), false, 'already revoked');
      assert.equal(await repository.findKeyOwner(annKey.lookupHash), undefined);
      assert.deepEqual(await repository.listActiveKeys(ann.id), []);
      assert.equal(await repository.createKeyWithinQuota(key(ann.id), 1), 'created');
    },
  );

  withRepository(
    "a disabled account's keys are found as disabled; the plan comes from the account",
    async (repository) => {
      const ann = account();
      await repository.createAccount(ann);
      const annKey = key(ann.id);
      await repository.createKeyWithinQuota(annKey, 5);
      await repository.setPlan(ann.id, 'pro');
      assert.equal((await repository.findKeyOwner(annKey.lookupHash))?.plan, 'pro');
      assert.equal((await repository.findKeyOwner(annKey.lookupHash))?.disabled, false);
      await repository.setDisabled(ann.id, 99);
      // Found, so the 401 can say the account is disabled rather than that the key is unknown.
      assert.equal((await repository.findKeyOwner(annKey.lookupHash))?.disabled, true);
      await repository.setDisabled(ann.id, null);
      assert.equal((await repository.findKeyOwner(annKey.lookupHash))?.disabled, false);
    },
  );

  withRepository('last-used times: batched, never moved backwards', async (repository) => {
    const ann = account();
    await repository.createAccount(ann);
    const a = key(ann.id);
    const b = key(ann.id);
    await repository.createKeyWithinQuota(a, 5);
    await repository.createKeyWithinQuota(b, 5);
    await repository.recordKeyUse([
      { keyId: a.id, usedAt: 300 },
      { keyId: b.id, usedAt: 200 },
    ]);
    await repository.recordKeyUse([{ keyId: a.id, usedAt: 250 }]);
    await repository.recordKeyUse([]);
    const used = Object.fromEntries((await repository.listActiveKeys(ann.id)).map((k) => [k.id, k.lastUsedAt]));
    assert.deepEqual(used, { [a.id]: 300, [b.id]: 200 });
  });

  withRepository('the account list counts active keys and the latest use', async (repository) => {
    const ann = account({ email: 'ann@example.com', createdAt: 1 });
    const bob = account({ email: 'bob@example.com', createdAt: 2, plan: 'pro' });
    await repository.createAccount(ann);
    await repository.createAccount(bob);
    const kept = key(ann.id);
    const revoked = key(ann.id);
    await repository.createKeyWithinQuota(kept, 5);
    await repository.createKeyWithinQuota(revoked, 5);
    await repository.revokeKey(ann.id, revoked.id, 10);
    await repository.recordKeyUse([{ keyId: revoked.id, usedAt: 700 }]);
    await repository.recordKeyUse([{ keyId: kept.id, usedAt: 500 }]);
    assert.deepEqual(await repository.listAccounts(), [
      { id: ann.id, email: ann.email, plan: 'free', createdAt: 1, disabledAt: null, activeKeys: 1, lastUsedAt: 700 },
      { id: bob.id, email: bob.email, plan: 'pro', createdAt: 2, disabledAt: null, activeKeys: 0, lastUsedAt: null },
    ]);
  });

  withRepository(
    'master key rotation: keys listed by version, secrets replaced only from the expected version',
    async (repository) => {
      const ann = account();
      await repository.createAccount(ann);
      const old = key(ann.id, { lookupHash: 'old-hash' });
      const current = key(ann.id, { secret: { keyVersion: 2, nonce: 'bg==', ciphertext: 'Yw==', tag: 'dA==' } });
      await repository.createKeyWithinQuota(old, 5);
      await repository.createKeyWithinQuota(current, 5);
      await repository.revokeKey(ann.id, current.id, 5);
      assert.deepEqual(
        (await repository.oneKeyPerVersion()).map((record) => record.secret.keyVersion),
        [1, 2],
        'revoked keys count: they are rotated too',
      );
      assert.deepEqual(
        (await repository.listKeysNotAtVersion(2)).map((record) => record.id),
        [old.id],
      );
      const secret = { keyVersion: 2, nonce: 'bm4=', ciphertext: 'Y2M=', tag: 'dHQ=' };
      assert.equal(await repository.replaceKeySecret(old.id, 1, 'new-hash', secret), true);
      assert.equal(await repository.replaceKeySecret(old.id, 1, 'other-hash', secret), false, 'already rotated');
      assert.equal(await repository.findKeyOwner('old-hash'), undefined);
      assert.equal((await repository.findKeyOwner('new-hash'))?.keyId, old.id);
      assert.deepEqual((await repository.listActiveKeys(ann.id))[0]?.secret, secret);
      assert.deepEqual(await repository.listKeysNotAtVersion(2), []);
      assert.deepEqual(
        (await repository.oneKeyPerVersion()).map((record) => record.secret.keyVersion),
        [2],
        'one key of each version in use',
      );
    },
  );
}
