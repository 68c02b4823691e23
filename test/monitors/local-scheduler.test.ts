import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import pino from 'pino';
import { createLocalScheduler, nextSlot } from '../../src/monitors/local-scheduler.ts';
import type { MonitorRepository } from '../../src/monitors/repository.ts';
import type { DueRun } from '../../src/monitors/scheduler.ts';

const log = pino({ level: 'silent' });

/** Only what the scheduler reads at start. */
function storedSchedule(
  monitors: { id: string; intervalSeconds: number; nextRunAt: number | null }[] = [],
  deliveries: { id: string; nextAttemptAt: number }[] = [],
): MonitorRepository {
  return {
    listScheduled: async () => monitors,
    dueDeliveries: async () => deliveries,
  } as unknown as MonitorRepository;
}

/** Runs the scheduler under node:test's mocked clock and timers: time moves only when the test says. */
async function withClock(body: (advance: (ms: number) => Promise<void>) => Promise<void>) {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    // Let what the timers started settle (their promises), as the event loop would.
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await body(async (ms) => {
      for (let step = 0; step < ms; step += 100) {
        mock.timers.tick(0);
        await settle();
        mock.timers.tick(Math.min(100, ms - step));
        await settle();
      }
    });
  } finally {
    mock.timers.reset();
  }
}

test('nextSlot keeps the grid and skips the slots missed while away', () => {
  assert.equal(nextSlot(0, 60_000, 10), 60_000);
  assert.equal(nextSlot(0, 60_000, 60_000), 120_000);
  assert.equal(nextSlot(0, 60_000, 185_000), 240_000);
});

test('runs each monitor on its slots, never twice, and stops when unscheduled', async () => {
  await withClock(async (advance) => {
    const runs: DueRun[] = [];
    const scheduler = createLocalScheduler({ repository: storedSchedule(), concurrency: 10, now: Date.now, log });
    await scheduler.start({ run: async (due) => void runs.push({ ...due }), deliver: async () => {} });
    await scheduler.schedule({ id: 'a', intervalSeconds: 2, firstAt: Date.now() });
    await scheduler.schedule({ id: 'b', intervalSeconds: 3, firstAt: Date.now() + 500 });
    await advance(6_100);
    const of = (id: string) => runs.filter((run) => run.monitorId === id).map((run) => run.dueAt - 1_000_000);
    assert.deepEqual(of('a'), [0, 2000, 4000, 6000]);
    assert.deepEqual(of('b'), [500, 3500]);
    // Saved again with the same interval: the slots stay; a new first time replaces them.
    await scheduler.schedule({ id: 'a', intervalSeconds: 2 });
    await scheduler.unschedule('b');
    await advance(4_000);
    assert.deepEqual(of('a'), [0, 2000, 4000, 6000, 8000, 10_000]);
    assert.deepEqual(of('b'), [500, 3500]);
    await scheduler.close();
  });
});

test('a run longer than its interval does not delay the next slot; concurrency holds the excess back', async () => {
  await withClock(async (advance) => {
    const started: number[] = [];
    let release = () => {};
    const scheduler = createLocalScheduler({ repository: storedSchedule(), concurrency: 1, now: Date.now, log });
    await scheduler.start({
      run: (due) => {
        started.push(Date.now() - 1_000_000);
        return due.dueAt === 1_000_000 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      deliver: async () => {},
    });
    await scheduler.schedule({ id: 'slow', intervalSeconds: 1, firstAt: Date.now() });
    await advance(2_500);
    assert.deepEqual(started, [0], 'the second slot waits for the one run allowed at once');
    release();
    await advance(100);
    assert.deepEqual(started, [0, 2500, 2500], 'the waiting slots run as soon as there is room');
    await scheduler.close();
  });
});

test('after a restart it runs what the database says is due, at once when overdue, and pending deliveries', async () => {
  await withClock(async (advance) => {
    const seen: string[] = [];
    const scheduler = createLocalScheduler({
      repository: storedSchedule(
        [
          { id: 'overdue', intervalSeconds: 60, nextRunAt: 1_000_000 - 30_000 },
          { id: 'later', intervalSeconds: 60, nextRunAt: 1_000_000 + 20_000 },
        ],
        [{ id: 'd1', nextAttemptAt: 1_000_000 + 5_000 }],
      ),
      concurrency: 10,
      now: Date.now,
      log,
    });
    await scheduler.start({
      run: async (due) => void seen.push(`${due.monitorId}@${(Date.now() - 1_000_000) / 1000}`),
      deliver: async (id) => void seen.push(`${id}@${(Date.now() - 1_000_000) / 1000}`),
    });
    await advance(21_000);
    assert.deepEqual(seen, ['overdue@0', 'd1@5', 'later@20']);
    await scheduler.close();
  });
});
