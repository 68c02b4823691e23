import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Readiness } from './readiness.ts';

const Check = Type.Object({ state: Type.String(), detail: Type.Optional(Type.String()) });
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('starting'), Type.Literal('degraded')]),
  checks: Type.Record(Type.String(), Check),
});

/** Liveness and readiness for orchestrators and load balancers; outside /api/v1, so never rate-limited. */
export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process answers.',
        tags: ['operations'],
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: data loaded and backends reachable (503 while starting).',
        tags: ['operations'],
        security: [],
        response: { 200: ReadyBody, 503: ReadyBody },
      },
    },
    async (_request, reply) => {
      const report = readiness.report();
      return reply.code(report.status === 'starting' ? 503 : 200).send(report);
    },
  );
}
