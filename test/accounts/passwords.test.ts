import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseEmail } from '../../src/accounts/email.ts';
import {
  ARGON2_PARAMETERS,
  createDecoyVerifier,
  hashPassword,
  needsRehash,
  passwordProblem,
  verifyPassword,
} from '../../src/accounts/passwords.ts';

test('argon2id hashes in PHC format verify the right password only', async () => {
  const hash = await hashPassword('correct horse battery');
  assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await verifyPassword('correct horse battery', hash), true);
  assert.equal(await verifyPassword('correct horse batterY', hash), false);
  assert.notEqual(await hashPassword('correct horse battery'), hash, 'salted');
  assert.equal(await verifyPassword('anything', 'not a hash'), false);
  assert.equal(needsRehash(hash), false);
  assert.equal(needsRehash(hash.replace('m=19456', 'm=8192')), true);
});

test('a hash costs well under the 100 ms a login may take', async () => {
  await hashPassword('warm-up password');
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await hashPassword('timing password');
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[2] ?? 0;
  // Generous bound: a loaded CI machine may be slower than our measurement (~25-40 ms).
  assert.ok(median < 100, `median ${median.toFixed(1)} ms with ${JSON.stringify(ARGON2_PARAMETERS)}`);
});

test('passwords are NFKC-normalised: the same password typed differently matches', async () => {
  const composed = 'caf\u00e9-password-1';
  const decomposed = 'cafe\u0301-password-1';
  assert.equal(await verifyPassword(decomposed, await hashPassword(composed)), true);
});

test('password length: 10 to 128 characters, counted in code points', () => {
  assert.equal(passwordProblem('123456789'), 'must be 10 to 128 characters long');
  assert.equal(passwordProblem('1234567890'), null);
  assert.equal(passwordProblem('x'.repeat(128)), null);
  assert.equal(passwordProblem('x'.repeat(129)), 'must be 10 to 128 characters long');
  assert.equal(passwordProblem('🔑'.repeat(10)), null, '10 emoji are 10 characters, 20 UTF-16 units');
});

test('the decoy verifier takes as long as a real verification', async () => {
  const decoy = createDecoyVerifier();
  await decoy('first call builds the decoy hash');
  const hash = await hashPassword('a real password');
  const time = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  const real: number[] = [];
  const fake: number[] = [];
  for (let i = 0; i < 5; i++) {
    real.push(await time(() => verifyPassword('guess', hash)));
    fake.push(await time(() => decoy('guess')));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[2] ?? 0;
  const ratio = median(fake) / median(real);
  // Without a decoy the ratio would be ~0.01; wide bounds keep a busy machine from failing it.
  assert.ok(ratio > 0.33 && ratio < 3, `decoy ${median(fake).toFixed(1)} ms vs real ${median(real).toFixed(1)} ms`);
});

test('emails are trimmed, lower-cased and their domain made ASCII', () => {
  const ok = (raw: string) => {
    const result = normaliseEmail(raw);
    assert.ok(result.ok, raw);
    return result.email;
  };
  assert.equal(ok('  Ann.Lee+Work@Example.COM '), 'ann.lee+work@example.com');
  assert.equal(ok('user@bücher.example'), 'user@xn--bcher-kva.example');
  assert.equal(ok('ÄNN@example.com'), 'änn@example.com');
  for (const bad of [
    '',
    'ann',
    'ann@',
    '@example.com',
    'ann@localhost',
    'a b@example.com',
    'ann@exa mple.com',
    'ann@-x.com',
    `${'a'.repeat(65)}@example.com`,
    'a"b@example.com',
    'ann@example..com',
    // Invisible or direction-changing (format) characters disguise an address.
    '\u202eevil\u200b@example.com',
    'ad\u200dmin@example.com',
    'admin\u00ad@example.com',
  ]) {
    assert.equal(normaliseEmail(bad).ok, false, bad);
  }
});
