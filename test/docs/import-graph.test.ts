import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// Dependencies run one way (issue 21): no file of src/ reaches itself through its imports, and no
// two folders import each other. Read from the sources' import statements, so a new back-edge fails
// here with the files that make it.

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return name === 'assets' ? [] : sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports of a file (static `import`/`export ... from` and `import(...)`), as resolved paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const targets = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] as string);
  return targets.map((target) => path.resolve(path.dirname(file), target));
}

/**
 * The place a file belongs to, as the architecture names them: src/<folder>, or the file itself for
 * the files at the root of src/ (each its own layer: config-values.ts below every capability,
 * config.ts and app.ts above them).
 */
function folderOf(file: string): string {
  const relative = path.relative(SRC, file).split(path.sep);
  return relative.length === 1 ? (relative[0] as string) : `${relative.slice(0, -1).join('/')}/`;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => target !== file)]));

test('no file of src/ reaches itself through its imports', () => {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(SRC, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('no two folders of src/ (subfolders included) import each other', () => {
  const edges = new Map<string, Set<string>>();
  const example = new Map<string, string>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)?.add(to);
      example.set(`${from}>${to}`, `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
  }
  const pairs: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      if (from < to && edges.get(to)?.has(from)) {
        pairs.push(`${from} <-> ${to}: ${example.get(`${from}>${to}`)}; ${example.get(`${to}>${from}`)}`);
      }
    }
  }
  assert.deepEqual(pairs, []);
});
