/** A run of a monitor that is due: which, and the time it was due (its slot, whatever the start). */
export interface DueRun {
  readonly monitorId: string;
  readonly dueAt: number;
}

export interface SchedulerHandlers {
  /** Runs and records the monitor's tick; resolves when it is recorded. */
  run(due: DueRun): Promise<void>;
  /** Makes one attempt at a delivery (and asks for the next through `deliver` when it fails). */
  deliver(deliveryId: string): Promise<void>;
}

/**
 * When monitors run and notifications are sent, each due job once across every process that shares
 * the schedule: in this process over the repository (local-scheduler.ts), or as BullMQ jobs in
 * Redis (bullmq-scheduler.ts), where a job of an instance that died is taken over by another.
 */
export interface MonitorScheduler {
  /** Runs every `intervalSeconds`, the first at `firstAt` (default: now). Replaces an earlier schedule. */
  schedule(monitor: { id: string; intervalSeconds: number; firstAt?: number | null }): Promise<void>;
  unschedule(id: string): Promise<void>;
  /** A delivery's next attempt, at `at`. */
  deliver(deliveryId: string, at: number): Promise<void>;
  start(handlers: SchedulerHandlers): Promise<void>;
  close(): Promise<void>;
}
