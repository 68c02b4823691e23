// Prints how well the WHOIS domain parser matches the shared corpora, field by field.
// Usage: node scripts/whois-score.ts [--mismatches]
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type CorpusScore, type FieldTally, SCORED_FIELDS, scoreWhoisCorpora } from './whois-score/score.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const fixturesRoot = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'whois');

function cell(tally: FieldTally): string {
  if (tally.asserted === 0) return '-';
  return `${((100 * tally.correct) / tally.asserted).toFixed(1)}% ${tally.correct}/${tally.asserted}`;
}

function row(name: string, score: CorpusScore): string[] {
  return [
    name,
    ...SCORED_FIELDS.map((field) => cell(score.fields[field])),
    cell(score.notFound),
    String(score.falseNotFound),
  ];
}

function printTable(rows: string[][]): void {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0)));
  for (const cells of rows) console.log(cells.map((text, column) => text.padEnd(widths[column] ?? 0)).join('  '));
}

if (!existsSync(fixturesRoot)) {
  console.error(`shared fixtures absent: ${fixturesRoot}`);
  process.exit(1);
}

const started = performance.now();
const score = scoreWhoisCorpora(fixturesRoot);
const rows = [['corpus', ...SCORED_FIELDS, 'not_found', 'false_not_found']];
for (const [name, corpus] of score.corpora) rows.push(row(name, corpus));
rows.push(row('all', score.total));
printTable(rows);
console.log(`(${(performance.now() - started).toFixed(0)} ms)`);

if (process.argv.includes('--mismatches')) {
  for (const miss of score.mismatches) {
    console.log(
      `${miss.file}  ${miss.field}  expected ${JSON.stringify(miss.expected)}  got ${JSON.stringify(miss.actual)}`,
    );
  }
}
