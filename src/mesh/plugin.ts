import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError, apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { SSE_HEADERS } from '../http/sse.ts';
import { exactValidatorCompiler } from '../http/validators.ts';
import { publicCaller } from '../limits/caller.ts';
import { streamMeasurementEvents } from './events-stream.ts';
import {
  createMeasurementRouteSchema,
  measurementEventsRouteSchema,
  measurementRouteSchema,
  nodesRouteSchema,
} from './schema.ts';
import type { MeasurementPlan, MeasurementRequest, Mesh } from './service.ts';
import { EVENT_ID, type MeasurementState } from './store.ts';

export interface MeshPluginOptions {
  mesh: Mesh;
  /** How often a watched measurement is checked for silent nodes: half a heartbeat (redis-store.ts). */
  sweepMs: number;
}

/** The store's own failures (Redis away) are the caller's 503; the catalogue's errors pass as they are. */
async function fromStore<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw apiErrors.meshUnavailable();
  }
}

function describe(state: MeasurementState) {
  const { record } = state;
  const probes = record.probes.map((probe, i) => {
    const { status, end } = state.probes[i] ?? { status: 'queued' };
    const shown = { ...probe, status: status === 'queued' ? ('in-progress' as const) : status };
    if (end?.status === 'finished') return { ...shown, status: 'finished' as const, result: end.result };
    if (end?.status === 'failed') {
      return {
        ...shown,
        status: 'failed' as const,
        error: end.error,
        ...(end.http_status ? { http_status: end.http_status } : {}),
      };
    }
    return shown;
  });
  const done = probes.every((probe) => probe.status === 'finished' || probe.status === 'failed');
  return {
    id: record.id,
    type: record.type,
    target: record.target,
    options: record.options,
    created_at: record.created_at,
    status: done ? ('finished' as const) : ('in-progress' as const),
    probes,
  };
}

type Described = ReturnType<typeof describe>;

/** `3 nodes: fra1 (Frankfurt, DE, AS3320), …` */
const NODES_TOOL = agentTool<{
  nodes: { name: string; location: { city?: string; country?: string }; asn: number | null }[];
}>(
  'list_nodes',
  ({ nodes }) =>
    `${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}: ${nodes
      .map((node) => {
        const where = [node.location.city, node.location.country, node.asn === null ? undefined : `AS${node.asn}`];
        const known = where.filter(Boolean);
        return known.length > 0 ? `${node.name} (${known.join(', ')})` : node.name;
      })
      .join(', ')}`,
);

/** The measurement is followed to its end (its events as progress) and its state answered: `ping example.com from 3 nodes: 3 finished` */
const MEASURE_TOOL = agentTool<Described, { id: string }>(
  'measure',
  (answer) => {
    const failed = answer.probes.filter((probe) => probe.status === 'failed');
    const finished = answer.probes.length - failed.length;
    const failures = failed.map((probe) => `${probe.node}: ${'error' in probe ? probe.error : 'failed'}`).join('; ');
    return `${answer.type} ${answer.target} from ${answer.probes.length} ${answer.probes.length === 1 ? 'node' : 'nodes'}: ${finished} finished${failed.length > 0 ? `, ${failed.length} failed (${failures})` : ''}`;
  },
  ({ id }) => ({ events: `/api/v1/measurements/${id}/events`, result: `/api/v1/measurements/${id}` }),
);

const READ_BY_MEASURE = { agentTool: { none: 'measure follows the measurement to its end and answers its state' } };

export const meshPlugin: FastifyPluginAsyncTypebox<MeshPluginOptions> = async (app, { mesh, sweepMs }) => {
  const plans = new WeakMap<FastifyRequest, MeasurementPlan>();

  app.get('/api/v1/nodes', { schema: nodesRouteSchema, config: { agentTool: NODES_TOOL } }, async () => ({
    nodes: await fromStore(mesh.nodes()),
  }));

  app.post(
    '/api/v1/measurements',
    {
      schema: createMeasurementRouteSchema,
      validatorCompiler: exactValidatorCompiler(),
      config: {
        agentTool: MEASURE_TOOL,
        // One request per probe: the plan is made (and refused) before the count, all or nothing.
        rateLimitCost: async (request) => {
          const caller = request.caller ?? publicCaller(request.clientIp);
          const plan = await fromStore(mesh.plan(request.body as MeasurementRequest, caller, request.clientIp));
          plans.set(request, plan);
          return plan.jobs.length;
        },
        rateLimitCostText: (_request, cost) => `this measurement has ${cost} probes`,
      },
    },
    async (request, reply) => {
      const plan =
        plans.get(request) ??
        (await fromStore(mesh.plan(request.body, request.caller ?? publicCaller(request.clientIp), request.clientIp)));
      await fromStore(mesh.start(plan));
      reply.code(202);
      return { id: plan.record.id, probes: plan.record.probes };
    },
  );

  app.get('/api/v1/measurements/:id', { schema: measurementRouteSchema, config: READ_BY_MEASURE }, async (request) => {
    await fromStore(mesh.store.sweep(request.params.id));
    const state = await fromStore(mesh.store.state(request.params.id));
    if (state === null) throw apiErrors.measurementNotFound();
    return describe(state);
  });

  app.get(
    '/api/v1/measurements/:id/events',
    { schema: measurementEventsRouteSchema, config: { apiKeyInQuery: true, ...READ_BY_MEASURE } },
    async (request, reply) => {
      const { id } = request.params;
      const lastEventId = request.headers['last-event-id'];
      const after = typeof lastEventId === 'string' && EVENT_ID.test(lastEventId) ? lastEventId : null;
      const first = await fromStore(mesh.store.events(id, after));
      if (first === null) throw apiErrors.measurementNotFound();
      if (request.method === 'HEAD') {
        reply.code(200).headers(SSE_HEADERS).send();
        return;
      }
      if (after !== null && first.length === 0) {
        const state = await fromStore(mesh.store.state(id));
        if (state !== null && describe(state).status === 'finished') {
          // A reconnect after measurement_done: 204 tells EventSource to stop.
          reply.code(204).send(null);
          return;
        }
      }
      await streamMeasurementEvents(request, reply, mesh.store, id, first, after, {
        sweepMs,
        shutdownSignal: app.shutdownSignal,
      });
    },
  );
};
