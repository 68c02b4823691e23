import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  API_KEY_PATTERN,
  base62Checksum,
  bearerToken,
  displayPrefix,
  generateApiKey,
  isWellFormedApiKey,
} from '../../src/accounts/api-key-format.ts';

test('a key is nk_, 30 random base62 characters and a 6-character checksum', () => {
  const key = generateApiKey();
  assert.match(key, /^nk_[0-9A-Za-z]{36}$/);
  assert.equal(key.length, 39);
  assert.ok(isWellFormedApiKey(key));
  assert.equal(key.slice(33), base62Checksum(key.slice(3, 33)));
  assert.equal(displayPrefix(key), key.slice(0, 9));
});

test('the scanner pattern documented in docs/security.md finds keys in text', () => {
  const key = generateApiKey();
  const page = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  const documented = /^regular expression: (\S+)$/m.exec(page)?.[1];
  assert.equal(documented, String.raw`\bnk_[0-9A-Za-z]{36}\b`);
  const leaked = `export NETINFO_KEY="${key}" # oops`;
  const found = new RegExp(documented).exec(leaked)?.[0];
  assert.equal(found, key);
  assert.ok(API_KEY_PATTERN.test(found ?? ''));
});

test('keys are distinct and every base62 character is used (the sampling is uniform, not modulo-biased)', () => {
  const keys = Array.from({ length: 2000 }, () => generateApiKey());
  assert.equal(new Set(keys).size, keys.length);
  const counts = new Map<string, number>();
  for (const key of keys)
    for (const character of key.slice(3, 33)) counts.set(character, (counts.get(character) ?? 0) + 1);
  assert.equal(counts.size, 62);
  // 60,000 draws over 62 characters: about 968 each. Modulo bias would give 0-7 a ~25% excess.
  for (const [character, count] of counts) assert.ok(count > 800 && count < 1150, `${character}: ${count}`);
});

test('rejection sampling discards bytes 248-255', () => {
  let calls = 0;
  // First call: only bytes that must be discarded; then bytes 0..61 repeating.
  const random = (size: number) => {
    const first = calls++ === 0;
    return Buffer.from(Array.from({ length: size }, (_, i) => (first ? 248 + (i % 8) : i % 62)));
  };
  const key = generateApiKey(random);
  assert.ok(isWellFormedApiKey(key));
  assert.equal(key.slice(3, 13), '0123456789');
});

test('a typo, a changed checksum, a wrong prefix or length is not well-formed', () => {
  const key = generateApiKey();
  const flip = (text: string, index: number) =>
    text.slice(0, index) + (text[index] === 'a' ? 'b' : 'a') + text.slice(index + 1);
  for (const index of [3, 10, 32, 33, 38])
    assert.equal(isWellFormedApiKey(flip(key, index)), false, `position ${index}`);
  assert.equal(isWellFormedApiKey(`nx_${key.slice(3)}`), false);
  assert.equal(isWellFormedApiKey(key.slice(0, -1)), false);
  assert.equal(isWellFormedApiKey(`${key}0`), false);
  assert.equal(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`), false);
  assert.equal(isWellFormedApiKey(''), false);
});

test('checksums are padded to 6 base62 digits', () => {
  for (let i = 0; i < 200; i++) assert.match(base62Checksum(String(i)), /^[0-9A-Za-z]{6}$/);
});

test('Authorization: the Bearer scheme in any case, one token', () => {
  assert.equal(bearerToken('Bearer nk_abc'), 'nk_abc');
  assert.equal(bearerToken('bearer  nk_abc '), 'nk_abc');
  assert.equal(bearerToken('BEARER nk_abc'), 'nk_abc');
  for (const bad of ['', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer a b', 'nk_abc', 'Bearernk_abc']) {
    assert.equal(bearerToken(bad), null, JSON.stringify(bad));
  }
});
