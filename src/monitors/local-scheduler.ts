import type { FastifyBaseLogger } from 'fastify';
import type { MonitorRepository } from './repository.ts';
import type { MonitorScheduler, SchedulerHandlers } from './scheduler.ts';

const LOAD_RETRY_MS = 5000;

interface Entry {
  at: number;
  kind: 'run' | 'deliver';
  id: string;
  /** A run entry is stale once its monitor is rescheduled or removed. */
  generation: number;
}

/** The next slot after `now` on the grid `dueAt + k * interval`: slots missed while away are not run in a burst. */
export function nextSlot(dueAt: number, intervalMs: number, now: number): number {
  if (dueAt + intervalMs > now) return dueAt + intervalMs;
  return dueAt + Math.ceil((now - dueAt + 1) / intervalMs) * intervalMs;
}

/**
 * The scheduler of one process without Redis: a heap of due times and one timer for the earliest.
 * The schedule itself lives in the repository: each recorded tick stores the monitor's next due
 * time, so after a restart (or a kill -9 mid-run, whose tick was never recorded) a monitor runs at
 * the time its last recorded tick set, at once if that has passed; pending deliveries are read back too.
 */
export function createLocalScheduler(deps: {
  repository: MonitorRepository;
  concurrency: number;
  now: () => number;
  log: FastifyBaseLogger;
}): MonitorScheduler {
  const { repository, now, log } = deps;
  const heap: Entry[] = [];
  const schedules = new Map<string, { intervalMs: number; generation: number }>();
  const waiting: Entry[] = [];
  let running = 0;
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let handlers: SchedulerHandlers | undefined;
  let closed = false;
  const inFlight = new Set<Promise<void>>();

  const push = (entry: Entry) => {
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as Entry).at <= entry.at) break;
      heap[i] = heap[parent] as Entry;
      i = parent;
    }
    heap[i] = entry;
    arm();
  };
  const pop = (): Entry | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        const at = (k: number) => (k === i ? last.at : (heap[k] as Entry).at);
        if (left < heap.length && at(left) < at(smallest)) smallest = left;
        if (right < heap.length && at(right) < at(smallest)) smallest = right;
        if (smallest === i) break;
        heap[i] = heap[smallest] as Entry;
        i = smallest;
      }
      heap[i] = last;
    }
    return top;
  };

  function arm() {
    if (closed || handlers === undefined) return;
    const next = heap[0]?.at ?? Number.POSITIVE_INFINITY;
    if (next >= timerAt) return;
    clearTimeout(timer);
    timerAt = next;
    // setTimeout holds at most 2^31-1 ms; a farther time is armed again when this one fires.
    timer = setTimeout(fire, Math.min(Math.max(0, next - now()), 2_147_483_647));
  }

  function fire() {
    timerAt = Number.POSITIVE_INFINITY;
    const time = now();
    while (heap.length > 0 && (heap[0] as Entry).at <= time) {
      const entry = pop() as Entry;
      if (entry.kind === 'run') {
        const schedule = schedules.get(entry.id);
        if (schedule?.generation !== entry.generation) continue;
        // The next slot is set as this one starts, as BullMQ's job schedulers do: a run longer than
        // its interval does not push the cadence back.
        push({ ...entry, at: nextSlot(entry.at, schedule.intervalMs, time) });
      }
      waiting.push(entry);
    }
    drain();
    arm();
  }

  function drain() {
    while (!closed && handlers && running < deps.concurrency && waiting.length > 0) {
      const entry = waiting.shift() as Entry;
      running += 1;
      const work =
        entry.kind === 'run' ? handlers.run({ monitorId: entry.id, dueAt: entry.at }) : handlers.deliver(entry.id);
      const done: Promise<void> = work
        .catch((error) => log.error({ err: error, id: entry.id }, `monitors: ${entry.kind} failed`))
        .finally(() => {
          running -= 1;
          inFlight.delete(done);
          drain();
        });
      inFlight.add(done);
    }
  }

  return {
    async schedule({ id, intervalSeconds, firstAt }) {
      const intervalMs = intervalSeconds * 1000;
      const current = schedules.get(id);
      if (current?.intervalMs === intervalMs && firstAt === undefined) return;
      generation += 1;
      schedules.set(id, { intervalMs, generation });
      push({ at: firstAt ?? now(), kind: 'run', id, generation });
    },
    async unschedule(id) {
      schedules.delete(id);
    },
    async deliver(deliveryId, at) {
      push({ at, kind: 'deliver', id: deliveryId, generation: 0 });
    },
    async start(given) {
      handlers = given;
      // The database may be away at start (PostgreSQL not up yet): the service serves meanwhile,
      // and the schedule is read once it answers.
      const load = async () => {
        try {
          for (const monitor of await repository.listScheduled()) {
            if (schedules.has(monitor.id)) continue;
            await this.schedule({
              id: monitor.id,
              intervalSeconds: monitor.intervalSeconds,
              firstAt: monitor.nextRunAt ?? now(),
            });
          }
          for (const delivery of await repository.dueDeliveries(Number.MAX_SAFE_INTEGER, 100_000)) {
            push({ at: delivery.nextAttemptAt ?? now(), kind: 'deliver', id: delivery.id, generation: 0 });
          }
          arm();
        } catch (error) {
          log.warn({ err: { message: (error as Error).message } }, 'monitors: could not read the schedule; retrying');
          if (!closed) setTimeout(load, LOAD_RETRY_MS).unref();
        }
      };
      await load();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
