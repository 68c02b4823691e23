import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseSkipRecords, summariseSkips } from '../../scripts/skip-report.ts';
import { describePackages, missingMessage, SYSTEM_PACKAGES } from '../../scripts/system-packages.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

// Regression: npm test said "real DNS server and dig for the DNS tests" for every missing test
// package, Chromium, Redis and PostgreSQL included.
test('a missing system package is named with what it is for, each its own reason', () => {
  const message = missingMessage(SYSTEM_PACKAGES.test);
  const line = (command: string) => message.split('\n').find((text) => text.trimStart().startsWith(`${command} `));
  assert.match(line('chromium') ?? '', /chromium \(apt package chromium\): the dashboard and CORS tests in a browser/);
  assert.doesNotMatch(line('chromium') ?? '', /DNS/);
  assert.match(line('redis-server') ?? '', /Redis/);
  assert.doesNotMatch(line('redis-server') ?? '', /DNS/);
  assert.match(line('pg_ctlcluster') ?? '', /PostgreSQL/);
  assert.match(line('knotd') ?? '', /DNS server/);
  assert.match(line('dig') ?? '', /dig/);
  assert.match(line('unbound') ?? '', /validating resolver/);
  assert.match(line('promtool') ?? '', /promtool \(apt package prometheus\): the metrics tests check \/metrics/);
  assert.match(
    message,
    /sudo apt-get install -y knot bind9-dnsutils redis-server chromium postgresql unbound openssl prometheus curl$/,
  );
  const purposes = [...SYSTEM_PACKAGES.runtime, ...SYSTEM_PACKAGES.test].map((entry) => entry.purpose);
  assert.equal(new Set(purposes).size, purposes.length, 'no reason is copied onto another package');
  assert.equal(
    describePackages(SYSTEM_PACKAGES.runtime),
    'iputils-ping (/api/v1/ping and its tests), traceroute (/api/v1/traceroute and its tests), mtr-tiny (/api/v1/mtr and its tests)',
  );
});

test("the skip reporter records node:test's skips with their reasons, and the summary groups them", () => {
  mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(root, '.tmp', 'skip-report-'));
  try {
    const file = path.join(dir, 'sample.test.ts');
    writeFileSync(
      file,
      [
        "import { describe, it, test } from 'node:test';",
        "test('runs', () => {});",
        "test('option skip', { skip: 'needs ../shared/fixtures/feeds' }, () => {});",
        "test('skips itself', (t) => { t.skip('needs ../shared/fixtures/feeds'); });",
        "test('bare skip', { skip: true }, () => {});",
        "describe('a suite', { skip: 'redis-server not found' }, () => { it('inner', () => {}); });",
        '',
      ].join('\n'),
    );
    const records = path.join(dir, 'skips.jsonl');
    const result = spawnSync(
      process.execPath,
      [
        '--test',
        `--test-reporter=${path.join(root, 'scripts', 'skip-report.ts')}`,
        `--test-reporter-destination=${records}`,
        file,
      ],
      // Without NODE_TEST_CONTEXT the inner run is a run of its own, not a child of this one.
      { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(result.status, 0, result.stderr);
    const skips = parseSkipRecords(readFileSync(records, 'utf8'));
    assert.deepEqual(skips.map(({ name, reason, suite }) => [name, reason, suite]).sort(), [
      ['a suite', 'redis-server not found', true],
      ['bare skip', '', false],
      ['option skip', 'needs ../shared/fixtures/feeds', false],
      ['skips itself', 'needs ../shared/fixtures/feeds', false],
    ]);
    const relative = path.relative(root, file);
    assert.equal(relative, path.join('.tmp', path.basename(dir), 'sample.test.ts'), 'file names are relative');
    assert.equal(
      summariseSkips(skips, root).replaceAll(`${relative}: `, ''),
      [
        'netinfo: skipped 3 tests and 1 suite (with every test in it):',
        '  needs ../shared/fixtures/feeds (2):',
        '    option skip',
        '    skips itself',
        '  (no reason given) (1):',
        '    bare skip',
        '  redis-server not found (1):',
        '    a suite (suite)',
      ].join('\n'),
    );
    assert.equal(summariseSkips([], root), 'netinfo: nothing skipped.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
