// Issue 29: the README had grown to 1,298 lines, repeating the route schemas almost word for word.
// It is a front door; what a field means lives in the schemas, operations in docs/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('the README stays a front door: at most 300 lines', () => {
  const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n').length - 1;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
});
