import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..');

/** Whether Node `major` satisfies an `engines.node` range of the forms the lock file holds. */
function allows(range: string, major: number): boolean {
  return range.split('||').some((part) => {
    const alternative = part.trim();
    const atLeast = /^>=\s*(\d+)(?:\.[\dx*]+)*$/.exec(alternative);
    if (atLeast) return major >= Number(atLeast[1]);
    const sameMajor = /^\^?(\d+)(?:\.[\dx*]+)*$/.exec(alternative);
    if (sameMajor) return major === Number(sameMajor[1]);
    return assert.fail(`engines.node range not understood by this test: ${JSON.stringify(range)}`);
  });
}

// The README lists the EBADENGINE warnings npm install prints on the oldest Node it supports
// running npm on (20): every locked package whose engines exclude Node 20 must be named there.
test('the README names every EBADENGINE warning npm install prints on Node 20', () => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { name?: string; engines?: { node?: string } }>;
  };
  const refused = Object.entries(lock.packages)
    .filter(([, entry]) => entry.engines?.node !== undefined && !allows(entry.engines.node, 20))
    .map(([key, entry]) => ({
      name:
        key === '' ? (entry.name ?? 'netinfo') : key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length),
      range: entry.engines?.node,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(refused, [
    { name: 'cookie', range: '>=22' },
    { name: 'netinfo', range: '>=24' },
  ]);
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.match(readme, /On Debian 12 with Node 20 or newer on PATH/);
  for (const { name, range } of refused) {
    assert.match(readme, new RegExp(`\`${name}\`[^.]*\\(\`required: \\{ node: '${range}' \\}\``), name);
  }
});

// Issue 28: npm 11 warned "1 package has install scripts not yet covered by allowScripts:
// @scarf/scarf" on every install. Every locked package with an install script is decided in
// package.json's allowScripts: true runs it, false refuses it without a warning.
test('package.json decides every install script of the lock file in allowScripts', () => {
  const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const allowScripts = (read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
  const withScripts = Object.entries(lock.packages)
    .filter(([key, entry]) => key !== '' && entry.hasInstallScript === true)
    .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.length > 0, 'the lock file marks install scripts');
  assert.deepEqual(
    withScripts.filter((name) => typeof allowScripts[name] !== 'boolean'),
    [],
  );
  assert.equal(allowScripts['@scarf/scarf'], false, "swagger-ui-dist's telemetry never runs");
});
