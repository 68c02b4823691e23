// `npm test`: installs the test peers a clean machine lacks (as root), then type-checks, lints and
// runs every test file. Tests whose peers are still missing skip with a visible message, and the
// run ends with a summary of what was skipped and why.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseSkipRecords, summariseSkips } from './skip-report.ts';
import { ensureSystemPackages } from './system-packages.ts';

ensureSystemPackages('runtime');
ensureSystemPackages('test');

const root = path.resolve(import.meta.dirname, '..');
mkdirSync(path.join(root, '.tmp'), { recursive: true });
const skipsFile = path.join(root, '.tmp', `test-skips-${process.pid}.jsonl`);

const extra = process.argv.slice(2);
// Reporters given after `--` replace spec and the skip summary (node pairs reporters with destinations).
const ownReporters = extra.some((arg) => arg.startsWith('--test-reporter'));
const reporters = ownReporters
  ? []
  : [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${path.join(import.meta.dirname, 'skip-report.ts')}`,
      `--test-reporter-destination=${skipsFile}`,
    ];
const steps: [string, string[]][] = [
  ['tsc', ['--noEmit', '-p', '.']],
  ['biome', ['ci', '.']],
  // No single test may hang the run: each gets at most two minutes.
  [process.execPath, ['--test', ...reporters, '--test-timeout=120000', ...extra, 'test/**/*.test.ts']],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (command === process.execPath && !ownReporters) {
    try {
      console.log(`\n${summariseSkips(parseSkipRecords(readFileSync(skipsFile, 'utf8')), root)}`);
    } catch (error) {
      console.warn(`netinfo: no summary of skipped tests (${(error as Error).message})`);
    }
    rmSync(skipsFile, { force: true });
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}
