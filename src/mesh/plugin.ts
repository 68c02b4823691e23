import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.ts';
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

const notFound = () =>
  new ApiError(404, 'measurement_not_found', 'No such measurement: unknown, or expired (MEASUREMENT_TTL_SECONDS).');

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

export const meshPlugin: FastifyPluginAsyncTypebox<MeshPluginOptions> = async (app, { mesh, sweepMs }) => {
  const plans = new WeakMap<FastifyRequest, MeasurementPlan>();

  app.get('/api/v1/nodes', { schema: nodesRouteSchema }, async () => ({ nodes: await mesh.nodes() }));

  app.post(
    '/api/v1/measurements',
    {
      schema: createMeasurementRouteSchema,
      validatorCompiler: exactValidatorCompiler(),
      config: {
        // One request per probe: the plan is made (and refused) before the count, all or nothing.
        rateLimitCost: async (request) => {
          const caller = request.caller ?? publicCaller(request.clientIp);
          const plan = await mesh.plan(request.body as MeasurementRequest, caller, request.clientIp);
          plans.set(request, plan);
          return plan.jobs.length;
        },
        rateLimitCostText: (_request, cost) => `this measurement has ${cost} probes`,
      },
    },
    async (request, reply) => {
      const plan =
        plans.get(request) ??
        (await mesh.plan(request.body, request.caller ?? publicCaller(request.clientIp), request.clientIp));
      await mesh.start(plan);
      reply.code(202);
      return { id: plan.record.id, probes: plan.record.probes };
    },
  );

  app.get('/api/v1/measurements/:id', { schema: measurementRouteSchema }, async (request) => {
    await mesh.store.sweep(request.params.id);
    const state = await mesh.store.state(request.params.id);
    if (state === null) throw notFound();
    return describe(state);
  });

  app.get(
    '/api/v1/measurements/:id/events',
    { schema: measurementEventsRouteSchema, config: { apiKeyInQuery: true } },
    async (request, reply) => {
      const { id } = request.params;
      const lastEventId = request.headers['last-event-id'];
      const after = typeof lastEventId === 'string' && EVENT_ID.test(lastEventId) ? lastEventId : null;
      const first = await mesh.store.events(id, after);
      if (first === null) throw notFound();
      if (after !== null && first.length === 0) {
        const state = await mesh.store.state(id);
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
