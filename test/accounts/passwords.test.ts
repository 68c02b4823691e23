import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { normaliseEmail } from '../../src/accounts/email.ts';
import {
  ARGON2_PARAMETERS,
  createDecoyVerifier,
  hashPassword,
  needsRehash,
  PASSWORD_MIN_LENGTH,
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

const EMAIL = 'ann.lee@example.com';

test('password length: 10 to 128 characters, counted in code points', () => {
  assert.equal(passwordProblem('tr0ub4dor', EMAIL), 'must be 10 to 128 characters long');
  assert.equal(passwordProblem('tr0ub4dor&', EMAIL), null);
  assert.equal(passwordProblem('xy'.repeat(64), EMAIL), null);
  assert.equal(passwordProblem(`${'xy'.repeat(64)}z`, EMAIL), 'must be 10 to 128 characters long');
  assert.equal(passwordProblem('🔑🚪'.repeat(5), EMAIL), null, '10 emoji are 10 characters, 20 UTF-16 units');
});

// NIST SP 800-63B 5.1.1.2. Each case was accepted before, when length was the only rule.
test('passwords attackers try first are refused, saying why', () => {
  const cases: [password: string, email: string, problem: RegExp, why: string][] = [
    ['1111111111', EMAIL, /^must not be one character repeated$/, 'one digit repeated'],
    [' '.repeat(10), EMAIL, /^must not be one character repeated$/, 'ten spaces'],
    ['🔑'.repeat(10), EMAIL, /^must not be one character repeated$/, 'repeated, counted in code points'],
    ['\0'.repeat(10), EMAIL, /^must not contain control characters/, 'ten NUL characters'],
    ['correct horse\0battery', EMAIL, /control characters/, 'one NUL inside'],
    ['correct\thorse battery', EMAIL, /control characters/, 'a tab'],
    ['correct horse\nbattery', EMAIL, /control characters/, 'a line break'],
    ['correct horse\u0085battery', EMAIL, /control characters/, 'a C1 control (NEL)'],
    ['password1234', EMAIL, /^is one of the most common passwords/, 'on the list'],
    ['PassWord1234', EMAIL, /most common passwords/, 'the list is compared without case'],
    ['ｐａｓｓｗｏｒｄ１２３４', EMAIL, /most common passwords/, 'fullwidth letters are the same after NFKC'],
    ['qwertyuiop', EMAIL, /most common passwords/, 'a keyboard row'],
    [EMAIL, EMAIL, /^must not contain your email address or the name before its @$/, 'the email itself'],
    ['ANN.LEE@EXAMPLE.COM', EMAIL, /your email address/, 'the email, in capitals'],
    ['ann.lee-2026-spring', EMAIL, /your email address/, 'contains the name before the @'],
    ['Spring-Ann.Lee!', EMAIL, /your email address/, 'contains the name, in other case'],
    ['bo@example.org', 'bo@example.org', /your email address/, 'a short name: the whole email is still refused'],
  ];
  for (const [password, email, problem, why] of cases) {
    assert.match(String(passwordProblem(password, email)), problem, why);
  }
});

test('what the rules leave alone', () => {
  const accepted: [password: string, email: string, why: string][] = [
    ['correct horse battery staple', EMAIL, 'a passphrase'],
    ['planning a bobsleigh trip', 'bob@example.com', 'a name under 4 characters is not looked for inside'],
    ['anna-banana-split', 'ann@example.com', 'nor is one of 3 that the password merely contains'],
    ['password1234!?', EMAIL, 'only exact entries of the common list'],
    ['aaaaaaaaab', EMAIL, 'not all one character'],
    ['zero\u200bwidth space', EMAIL, 'format characters (Cf) are not control characters'],
    ['mot de passe où l’on écrit', EMAIL, 'any Unicode letters and spaces'],
  ];
  for (const [password, email, why] of accepted) assert.equal(passwordProblem(password, email), null, why);
});

test('the common-password list holds only entries the length rule lets through, lower case, once each', () => {
  const lines = readFileSync(new URL('../../src/accounts/common-passwords.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  assert.ok(lines.length > 1500, `${lines.length} entries`);
  assert.equal(new Set(lines).size, lines.length);
  for (const line of lines) {
    assert.equal(line, line.normalize('NFKC').toLowerCase(), line);
    assert.ok([...line].length >= PASSWORD_MIN_LENGTH, line);
    assert.match(String(passwordProblem(line, EMAIL)), /most common passwords|one character repeated/, line);
  }
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
