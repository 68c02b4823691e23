// docs/architecture.md is where a newcomer starts; a path it names that no longer exists sends them
// looking for a file that moved. Every path it names must exist in the tree.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGE = path.join(ROOT, 'docs', 'architecture.md');

/**
 * The paths the page names: every token under one of the repository's top folders (cut at a
 * placeholder such as `<tool>`), every code span that names a file by its extension, and every
 * relative link (from docs/).
 */
function namedPaths(page: string): string[] {
  const underRoots = [...page.matchAll(/(?<![\w./-])((?:src|test|docs|scripts|bench|deploy)\/[\w./-]*)/g)].map(
    ([, found = '']) => found.replace(/[.]+$/, ''),
  );
  const files = [...page.matchAll(/`([\w./-]+\.(?:ts|js|json|md|css|sh|txt))`/g)].map(([, found = '']) => found);
  const links = [...page.matchAll(/\]\(([\w./-]+?)(?:#[\w-]*)?\)/g)].map(([, found = '']) =>
    path.relative(ROOT, path.join(ROOT, 'docs', found)),
  );
  return [...new Set([...underRoots, ...files, ...links])].sort();
}

test('every path docs/architecture.md names exists', () => {
  const page = readFileSync(PAGE, 'utf8');
  const paths = namedPaths(page);
  assert.ok(paths.length > 40, `only ${paths.length} paths found: is the pattern still right?`);
  const missing = paths.filter((named) => !existsSync(path.join(ROOT, named)));
  assert.deepEqual(missing, [], 'paths named in docs/architecture.md that do not exist');
});

test('a file named without its folder is a path the check cannot see: the page names files from the root', () => {
  const page = readFileSync(PAGE, 'utf8');
  const bare = [...page.matchAll(/`([\w-]+\.(?:ts|js))`/g)].map(([, found]) => found);
  assert.deepEqual(bare, [], 'write these as src/... or test/... paths');
});
