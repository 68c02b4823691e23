// `npm test`: installs the test peers a clean machine lacks (as root), then type-checks, lints and
// runs every test file. Tests whose peers are still missing skip with a visible message.
import { spawnSync } from 'node:child_process';
import { ensureSystemPackages } from './system-packages.ts';

ensureSystemPackages('runtime');
ensureSystemPackages('test');

const steps: [string, string[]][] = [
  ['tsc', ['--noEmit', '-p', '.']],
  ['biome', ['ci', '.']],
  // No single test may hang the run: each gets at most two minutes.
  [
    process.execPath,
    ['--test', '--test-reporter=spec', '--test-timeout=120000', ...process.argv.slice(2), 'test/**/*.test.ts'],
  ],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
