// What `npm test` skipped and why. The default export is a node:test reporter (run beside spec with
// `--test-reporter=<this file> --test-reporter-destination=<file>`): it writes one JSON line per
// skipped test or suite, with the reason given to `skip`. `summariseSkips` turns those lines into
// the summary printed at the end of the run.
import path from 'node:path';
import type { TestEvent } from 'node:test/reporters';

export interface SkipRecord {
  file: string | undefined;
  name: string;
  reason: string;
  suite: boolean;
}

export default async function* skipReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, file, name, details } = event.data;
    if (skip === undefined || skip === false) continue;
    const record: SkipRecord = {
      file,
      name,
      reason: typeof skip === 'string' ? skip : '',
      suite: details.type === 'suite',
    };
    yield `${JSON.stringify(record)}\n`;
  }
}

export function parseSkipRecords(text: string): SkipRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SkipRecord);
}

/** The skipped tests grouped by reason, the largest group first; file names relative to `root`. */
export function summariseSkips(records: SkipRecord[], root: string): string {
  if (records.length === 0) return 'netinfo: nothing skipped.';
  const byReason = new Map<string, SkipRecord[]>();
  for (const record of records) {
    const reason = record.reason || '(no reason given)';
    byReason.set(reason, [...(byReason.get(reason) ?? []), record]);
  }
  const suites = records.filter((record) => record.suite).length;
  const counted = [
    records.length - suites > 0 ? `${records.length - suites} test${records.length - suites === 1 ? '' : 's'}` : '',
    suites > 0 ? `${suites} suite${suites === 1 ? '' : 's'} (with every test in it)` : '',
  ].filter(Boolean);
  const lines = [`netinfo: skipped ${counted.join(' and ')}:`];
  for (const [reason, group] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`  ${reason} (${group.length}):`);
    for (const record of group) {
      const file = record.file === undefined ? '' : `${path.relative(root, record.file)}: `;
      lines.push(`    ${file}${record.name}${record.suite ? ' (suite)' : ''}`);
    }
  }
  return lines.join('\n');
}
