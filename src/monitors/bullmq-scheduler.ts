import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, Queue, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import type { MonitorScheduler } from './scheduler.ts';

/** Every key under `netinfo:` (docs/scaling.md's ACL), apart from the mesh's. */
const PREFIX = 'netinfo:monitors';
const QUEUE = 'jobs';
/** A scheduler's job id is `repeat:<monitor id>:<due time>` (BullMQ's job-scheduler.js). */
const DUE = /:(\d+)$/;
const CLOSE_WAIT_MS = 2000;

/**
 * Schedules and runs as BullMQ jobs in Redis, shared by every instance and worker on it: a job
 * scheduler per monitor (`every` its interval; BullMQ adds the next run's job as the current one
 * starts), one delayed job per delivery attempt. A job is taken by one worker under a lock it
 * renews; a worker that dies stops renewing, and after `lockMs` another takes the job over
 * (BullMQ's stalled-job check), so a run lost with its instance is run again elsewhere.
 */
export function createBullmqScheduler(deps: {
  redisUrl: string;
  concurrency: number;
  lockMs: number;
  now: () => number;
  log: FastifyBaseLogger;
}): MonitorScheduler {
  const { log, now } = deps;
  let closed = false;
  // BullMQ makes (and duplicates, and closes) its connections itself from these options; they stop
  // reconnecting once closed, so a Redis that went away cannot keep the process alive.
  const url = new URL(deps.redisUrl);
  const connection = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    db: Number(url.pathname.slice(1) || 0),
    ...(url.protocol === 'rediss:' ? { tls: { servername: url.hostname } } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: (attempt: number) => (closed ? null : Math.min(attempt * 200, 2000)),
  };
  const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
  queue.on('error', (error) => log.warn({ err: { message: error.message } }, 'monitors: queue error'));
  let worker: Worker | undefined;

  return {
    async schedule({ id, intervalSeconds, firstAt }) {
      const every = intervalSeconds * 1000;
      await queue.upsertJobScheduler(
        id,
        { every, ...(firstAt === undefined || firstAt === null ? {} : { startDate: Math.max(firstAt, now()) }) },
        { name: 'run', data: { monitor: id }, opts: { removeOnComplete: true, removeOnFail: { age: 86_400 } } },
      );
    },
    async unschedule(id) {
      await queue.removeJobScheduler(id);
    },
    async deliver(deliveryId, at) {
      await queue.add(
        'deliver',
        { delivery: deliveryId },
        {
          delay: Math.max(0, at - now()),
          // One job per attempt time: a delivery asked twice for one attempt is sent once.
          jobId: `deliver:${deliveryId}:${at}`,
          removeOnComplete: true,
          removeOnFail: { age: 86_400 },
        },
      );
    },
    async start(handlers) {
      worker = new Worker(
        QUEUE,
        async (job: Job) => {
          if (job.name === 'deliver') return handlers.deliver(String(job.data.delivery));
          const due = DUE.exec(String(job.id))?.[1];
          return handlers.run({
            monitorId: String(job.data.monitor),
            dueAt: due === undefined ? job.timestamp : Number(due),
          });
        },
        {
          connection,
          prefix: PREFIX,
          concurrency: deps.concurrency,
          lockDuration: deps.lockMs,
          stalledInterval: Math.max(1000, deps.lockMs / 2),
          maxStalledCount: 2,
        },
      );
      worker.on('error', (error) => log.warn({ err: { message: error.message } }, 'monitors: worker error'));
      worker.on('failed', (job, error) =>
        log.error({ err: { message: error.message }, job: job?.id }, 'monitors: a job failed'),
      );
      // Not waited for: with Redis away at start the service serves, and the worker connects when it can.
    },
    /** Without waiting for the runs under way: their jobs' locks lapse, and another instance runs them again. */
    async close() {
      // A Redis that does not answer would hold the close for ever: give it a moment, then cut.
      closed = true;
      const closing = Promise.allSettled([worker?.close(true), queue.close()]);
      await Promise.race([closing, sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
    },
  };
}
