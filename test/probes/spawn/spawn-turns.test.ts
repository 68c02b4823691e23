import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSpawnTurns } from '../../../src/probes/spawn/spawn-turns.ts';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
};

test('one spawn per turn of the event loop, in order, with due callbacks run between spawns', async () => {
  const turns = createSpawnTurns();
  const log: string[] = [];
  const timers: Promise<void>[] = [];
  await Promise.all(
    [1, 2, 3].map(async (n) => {
      await turns.next();
      log.push(`spawn ${n}`);
      // A fork takes milliseconds; meanwhile this timer (standing for a line of output) falls due,
      // and it must be handled before the next spawn, not after the whole burst.
      timers.push(new Promise((resolve) => setTimeout(() => resolve(void log.push(`output ${n}`)), 1)));
      busy(3);
    }),
  );
  await Promise.all(timers);
  assert.deepEqual(log, ['spawn 1', 'output 1', 'spawn 2', 'output 2', 'spawn 3', 'output 3']);
});
