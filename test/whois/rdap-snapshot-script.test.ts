// `npm run rdap:snapshot` refuses what it cannot use in one line, and leaves the shipped snapshot
// as it was (only failing runs are tried here: a successful one rewrites the shipped file).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { SHIPPED_SNAPSHOT_PATH } from '../../src/whois/rdap/bootstrap-store.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['scripts/rdap-snapshot.ts', ...args], { cwd: root }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );

test('rdap:snapshot: unknown options, missing files and an empty registry are one-line refusals', async () => {
  const before = readFileSync(SHIPPED_SNAPSHOT_PATH, 'utf8');
  const server = await startLocalHttpServer();
  try {
    server.set('/dns.json', { body: JSON.stringify({ services: [] }) });
    server.set('/ipv4.json', { body: JSON.stringify({ services: [] }) });
    server.set('/ipv6.json', { body: JSON.stringify({ services: [] }) });
    server.set('/asn.json', { body: JSON.stringify({ services: [] }) });
    const cases: [string[], RegExp][] = [
      [['--bogus'], /^rdap:snapshot: Unknown option '--bogus'\nusage: /],
      [['--from-freewhois', '/nonexistent.tgz', '--date', '2026-01-01'], /^rdap:snapshot: ENOENT/],
      [['--url', `${server.origin}/`], /^rdap:snapshot: the domain registry has 0 services .* left as it was\n$/],
    ];
    for (const [args, expected] of cases) {
      const { code, stderr } = await run(...args);
      assert.equal(code, 1, args.join(' '));
      assert.match(stderr, expected);
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    }
  } finally {
    await server.close();
  }
  assert.equal(readFileSync(SHIPPED_SNAPSHOT_PATH, 'utf8'), before, 'the shipped snapshot is untouched');
});
