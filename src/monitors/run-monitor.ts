import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { Mesh } from '../mesh/service.ts';
import type { MeshStore, ProbeEnd } from '../mesh/store.ts';
import { conditionOptions, judge } from './monitor-types.ts';
import type { Notifier } from './notifier.ts';
import type { MonitorRecord, MonitorRepository, RunRecord } from './repository.ts';
import type { DueRun, MonitorScheduler } from './scheduler.ts';
import { tickState } from './tick.ts';

/** A run whose probes have not all ended by then is recorded with an error for each one still out. */
const RUN_DEADLINE_MS = 300_000;
/** The address a monitor's probes are made from, as their routes log it (the caps count the account). */
const MONITOR_CLIENT_IP = '127.0.0.1';

interface ProbeOutcome {
  node: string;
  end: ProbeEnd;
  /** When its end was seen. */
  at: number;
}

/**
 * One tick of a monitor: its check run as a measurement (from the nodes of its `from`, else from
 * this node), each probe judged by the monitor's conditions, and the tick recorded with what it
 * changed and the notifications of the change, in one transaction; then the notifications are sent.
 */
export function createMonitorRunner(deps: {
  repository: MonitorRepository;
  mesh: Mesh;
  scheduler: MonitorScheduler;
  notifier: Notifier;
  sweepMs: number;
  /** Aborted at shutdown: runs under way stop waiting, and are not recorded (so they run again). */
  shutdown: AbortSignal;
  now: () => number;
  log: FastifyBaseLogger;
}) {
  const { repository, mesh, now } = deps;

  async function measure(monitor: MonitorRecord, plan: 'free' | 'pro', startedAt: number): Promise<ProbeOutcome[]> {
    // Each monitor is its own caller for the per-caller caps (streams, in-flight checks): it runs one
    // check at a time, and an account's thousands of monitors are bounded by MONITOR_LIMITS and the
    // plan's floor already; counted as the account, most of them were refused (bench:monitors).
    const caller = { tier: plan, subject: `monitor:${monitor.id}`, accountId: monitor.accountId };
    let measurement: Awaited<ReturnType<Mesh['plan']>>;
    try {
      measurement = await mesh.plan(
        {
          type: monitor.type,
          target: monitor.target,
          options: { ...monitor.options, ...conditionOptions(monitor.type, monitor.conditions) },
          locations: [...monitor.locations],
        },
        caller,
        MONITOR_CLIENT_IP,
      );
      await mesh.start(measurement);
    } catch (error) {
      // No node to run it (a `from` that matches none now), or the mesh's store away: netinfo's failure.
      const message =
        error instanceof ApiError ? error.message : `the mesh could not take the run: ${(error as Error).message}`;
      return [{ node: mesh.self().name, end: { status: 'failed', error: message }, at: startedAt }];
    }
    const ends = await awaitEnds(mesh.store, measurement.record.id, measurement.jobs.length);
    // Nobody reads a monitor's measurement again (its runs are the record): it is not kept for
    // MEASUREMENT_TTL_SECONDS, which at 10,000 monitors a minute would hold 600,000 of them.
    await mesh.store.forget(measurement.record.id).catch(() => {});
    return measurement.record.probes.map((probe, i) => ({
      node: probe.node,
      end: ends[i]?.end ?? { status: 'failed', error: `no result within ${RUN_DEADLINE_MS / 1000} s` },
      at: ends[i]?.at ?? now(),
    }));
  }

  function awaitEnds(
    store: MeshStore,
    id: string,
    count: number,
  ): Promise<({ end: ProbeEnd; at: number } | undefined)[]> {
    return new Promise((resolve) => {
      const ends: ({ end: ProbeEnd; at: number } | undefined)[] = new Array(count).fill(undefined);
      let reading = false;
      let again = false;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        deps.shutdown.removeEventListener('abort', finish);
        watch.stop();
        clearInterval(sweeper);
        clearTimeout(deadline);
        resolve(ends);
      };
      const read = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          const state = await store.state(id);
          state?.probes.forEach((probe, i) => {
            if (probe.end && !ends[i]) ends[i] = { end: probe.end, at: now() };
          });
          if (state === null || ends.every(Boolean)) finish();
        } catch {
          // The store is away for a moment: the sweeper's next read tries again.
        } finally {
          reading = false;
          if (again && !finished) {
            again = false;
            void read();
          }
        }
      };
      const watch = store.watch(id, () => void read());
      // A node that dies mid-probe sends nothing more: its probe is ended by a sweep (mesh/store.ts).
      const sweeper = setInterval(() => {
        void store.sweep(id).catch(() => {});
        void read();
      }, deps.sweepMs);
      const deadline = setTimeout(finish, RUN_DEADLINE_MS);
      if (deps.shutdown.aborted) finish();
      deps.shutdown.addEventListener('abort', finish, { once: true });
      void watch.ready.then(read, read);
    });
  }

  return async function run({ monitorId, dueAt }: DueRun): Promise<void> {
    const monitor = await repository.monitorById(monitorId);
    if (!monitor || monitor.pausedAt !== null || monitor.accountDisabled) {
      // Deleted or paused while its job waited, or its account disabled: no more runs.
      await deps.scheduler.unschedule(monitorId);
      return;
    }
    const startedAt = now();
    const outcomes = await measure(monitor, monitor.plan, startedAt);
    const runs: RunRecord[] = [];
    let baseline: unknown;
    for (const outcome of outcomes) {
      const verdict = judge(monitor.type, monitor.conditions, outcome.end, monitor.baseline);
      baseline ??= verdict.baseline;
      runs.push({
        id: randomBytes(12).toString('hex'),
        monitorId,
        dueAt,
        startedAt,
        node: outcome.node,
        durationMs: Math.max(0, Math.round(outcome.at - startedAt)),
        responseMs: verdict.responseMs,
        state: verdict.state,
        cause: verdict.cause,
        summary: verdict.summary,
      });
    }
    // A run cut short by shutdown is not recorded: it runs again, here after a restart or elsewhere.
    if (deps.shutdown.aborted) return;
    const down = runs.find((candidate) => candidate.state === 'down');
    const at = now();
    const outcome = await repository.recordTick(
      {
        monitorId,
        dueAt,
        at,
        runs,
        state: tickState(runs.map((candidate) => candidate.state)),
        cause: down ? `${down.node}: ${down.cause}` : null,
        ...(baseline === undefined ? {} : { baseline }),
        nextRunAt: dueAt + monitor.intervalSeconds * 1000,
      },
      (change) => deps.notifier.deliveriesFor(change, runs, at),
    );
    if (!outcome.recorded) return;
    for (const delivery of outcome.deliveries) await deps.scheduler.deliver(delivery.id, at);
  };
}
