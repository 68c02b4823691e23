import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import type { Caller } from '../limits/caller.ts';
import type { InternalRequests } from '../limits/internal-request.ts';
import type { Tier } from '../limits/tiers.ts';
import { type Job, type SignedJob, signJob, verifyJob } from './job.ts';
import { type MeasurementType, requiredTool } from './measurement-types.ts';
import type { NodeInfo } from './node-info.ts';
import { runJob } from './run-job.ts';
import { type LocationSelector, selectProbes } from './select-probes.ts';
import type { MeasurementRecord, MeshStore, ProbeEnd } from './store.ts';

export interface MeshSettings {
  readonly nodeHeartbeatSeconds: number;
  readonly measurementLimits: Readonly<Record<Tier, number>>;
}

export interface MeasurementRequest {
  type: MeasurementType;
  target: string;
  options?: Record<string, string | number | boolean>;
  locations?: LocationSelector[];
  limit?: number;
}

/** A measurement ready to start: chosen, checked, signed. Its probes are what the caller is charged. */
export interface MeasurementPlan {
  record: MeasurementRecord;
  jobs: { node: string; job: SignedJob }[];
}

export interface Mesh {
  readonly store: MeshStore;
  /** This node as announced (refreshed at every heartbeat). */
  self(): NodeInfo;
  nodes(): Promise<NodeInfo[]>;
  plan(request: MeasurementRequest, caller: Caller, clientIp: string): Promise<MeasurementPlan>;
  start(plan: MeasurementPlan): Promise<void>;
}

/** An append that fails (Redis away) is tried again this often, for this long, so no event is lost to an outage. */
const APPEND_RETRY_MS = 250;
const APPEND_GIVE_UP_MS = 120_000;

/**
 * The node's part in the mesh: it announces itself, takes the jobs signed for it and runs each as
 * a request to the type's own route (run-job.ts), and plans the measurements it is asked for.
 */
export function createMesh(
  app: FastifyInstance,
  settings: MeshSettings,
  deps: {
    store: MeshStore;
    secret: string;
    describeSelf: () => NodeInfo;
    checkOptions: (
      type: MeasurementType,
      target: string,
      options: Record<string, string | number | boolean>,
    ) => Record<string, string>;
    internal: InternalRequests;
    now: () => number;
  },
): Mesh {
  const { store, secret, internal, now } = deps;
  const log: FastifyBaseLogger = app.log;
  let self = deps.describeSelf();
  const runner = `${self.name}#${randomBytes(6).toString('hex')}`;
  const running = new Set<Promise<void>>();
  let heartbeat: NodeJS.Timeout | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  let closingAt: number | undefined;

  const announce = async () => {
    self = deps.describeSelf();
    try {
      await store.announce(self, runner);
    } catch (error) {
      log.warn({ err: { message: (error as Error).message } }, 'mesh: heartbeat failed');
    }
  };

  app.addHook('onReady', async () => {
    await announce();
    heartbeat = setInterval(() => void announce(), settings.nodeHeartbeatSeconds * 1000);
    heartbeat.unref();
    keepAlive = setInterval(
      () => void store.keepAlive(runner).catch(() => {}),
      (settings.nodeHeartbeatSeconds * 1000) / 2,
    );
    keepAlive.unref();
    store.consume(self.name, runner, (signed) => {
      const job = verifyJob(signed, secret);
      if (job === null || job.node !== self.name) {
        log.warn({ node: job?.node }, 'mesh: refused a job not signed by the mesh or not for this node');
        return;
      }
      const run = execute(job).finally(() => running.delete(run));
      running.add(run);
    });
  });
  // Streams stop at shutdown (the routes' own signal) and say so; their last events are written
  // before the store closes.
  app.addHook('preClose', async () => {
    closingAt = now();
    clearInterval(heartbeat);
    clearInterval(keepAlive);
    await Promise.race([Promise.allSettled(running), sleep(5000, undefined, { ref: false })]);
    await store.close();
  });

  async function execute(job: Job): Promise<void> {
    if (!(await retried(() => store.claim(job.measurement, job.probe, runner), job))) return;
    let open = true;
    const sink = async (json: string, end?: ProbeEnd) => {
      if (!open) return;
      const outcome = await retried(() => store.append(job.measurement, job.probe, json, end), job);
      // Ended (swept as silent) or gone (expired, or lost with a Redis that restarted empty): stop writing.
      if (outcome !== 'appended') open = false;
    };
    try {
      await runJob(app, job, internal.headers(job.caller), sink);
    } catch (error) {
      log.error({ err: error, measurement: job.measurement }, 'mesh: probe failed');
      const message = 'The probe failed on its node (an internal error; see its log).';
      await sink(JSON.stringify({ type: 'error', node: job.node, message }), { status: 'failed', error: message });
    }
  }

  async function retried<T>(call: () => Promise<T>, job: Job): Promise<T | undefined> {
    const until = now() + APPEND_GIVE_UP_MS;
    for (;;) {
      try {
        return await call();
      } catch (error) {
        const giveUpAt = closingAt === undefined ? until : Math.min(until, closingAt + 5000);
        if (now() > giveUpAt) {
          log.error(
            { err: { message: (error as Error).message }, measurement: job.measurement },
            'mesh: gave up writing a probe event',
          );
          return undefined;
        }
        await sleep(APPEND_RETRY_MS);
      }
    }
  }

  return {
    store,
    self: () => self,
    async nodes() {
      const nodes = await store.nodes();
      if (!nodes.some((node) => node.name === self.name)) nodes.push(self);
      return nodes.sort((a, b) => a.name.localeCompare(b.name));
    },
    async plan(request, caller, clientIp) {
      const cap = settings.measurementLimits[caller.tier];
      const over = (what: string, value: number) =>
        apiErrors.badRequest(
          `${what} ${value} is above the ${cap} probes a ${caller.tier} caller may have in one measurement (MEASUREMENT_LIMITS).`,
        );
      if (request.limit !== undefined && request.limit > cap) throw over("'limit'", request.limit);
      for (const [index, selector] of (request.locations ?? []).entries()) {
        if (selector.limit !== undefined && selector.limit > cap)
          throw over(`'locations[${index}].limit'`, selector.limit);
      }
      const options = deps.checkOptions(request.type, request.target, request.options ?? {});
      const tool = requiredTool(request.type, options);
      let chosen: NodeInfo[];
      if (request.locations === undefined || request.locations.length === 0) {
        if (tool !== null && !self.tools.includes(tool)) {
          throw apiErrors.badRequest(`This node (${self.name}) cannot run ${request.type}: ${tool} is not installed.`);
        }
        chosen = [self];
      } else {
        const selection = selectProbes(await this.nodes(), {
          locations: request.locations,
          limit: request.limit ?? cap,
          tool,
        });
        if (!selection.ok) throw apiErrors.badRequest(`No probes: ${selection.problem}.`);
        chosen = selection.nodes;
      }
      const id = randomBytes(16).toString('hex');
      const record: MeasurementRecord = {
        id,
        type: request.type,
        target: request.target,
        options,
        created_at: new Date(now()).toISOString(),
        probes: chosen.map((node) => ({ node: node.name, location: node.location, asn: node.asn })),
      };
      const jobs = chosen.map((node, probe) => ({
        node: node.name,
        job: signJob(
          {
            measurement: id,
            probe,
            node: node.name,
            type: request.type,
            target: request.target,
            options,
            client_ip: clientIp,
            caller: { tier: caller.tier, subject: caller.subject },
            origin: self.name,
          },
          secret,
        ),
      }));
      return { record, jobs };
    },
    async start(plan) {
      await store.create(plan.record, plan.jobs);
    },
  };
}
