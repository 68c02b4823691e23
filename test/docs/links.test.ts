// The README and docs/ link to each other by page and heading; a heading reworded or a page split
// breaks a link silently on GitHub. Every relative link must reach a file, and its #anchor a heading.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((page) =>
  page.endsWith('.md'),
);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading = '']) => anchorOf(heading)));
}

test('every relative link of README.md and docs/ reaches a file, and its anchor a heading there', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const linked = file === '' ? page : path.relative(ROOT, path.join(ROOT, path.dirname(page), file));
      if (!existsSync(path.join(ROOT, linked))) broken.push(`${page}: ${target} (no ${linked})`);
      else if (anchor !== undefined && linked.endsWith('.md') && !anchorsIn(linked).has(anchor))
        broken.push(`${page}: ${target} (no such heading in ${linked})`);
    }
  }
  assert.deepEqual(broken, []);
});
