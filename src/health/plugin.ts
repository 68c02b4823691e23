import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Readiness } from './readiness.ts';

const Check = Type.Object({ state: Type.String(), detail: Type.Optional(Type.String()) });
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('starting'), Type.Literal('degraded')]),
  checks: Type.Record(Type.String(), Check),
});
const CLOSING = 'The service is closing (Fastify answers 503 while it closes).';

const healthRouteSchema = {
  summary: 'Liveness: the process answers.',
  operationId: 'getHealth',
  tags: ['operations'],
  security: [],
  response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: { description: CLOSING } },
};

const readinessRouteSchema = {
  summary: 'Readiness: data loaded and backends reachable (503 while starting).',
  description:
    '`ready`: everything works. `starting` (503): the IP data is still loading. `degraded` (200: keep sending ' +
    'traffic, an operator should look): the service answers, with a part that needs attention named in its ' +
    "check's `detail`. Among them: `redis` when Redis is down or not answering in time (limits per process, " +
    'caches bypassed; a circuit breaker sends requests to the in-process side at once and probes Redis in the ' +
    'background); `accounts` when the account database is unreachable (502s) or full (`account database full`: ' +
    'sign-ups, logins and new keys answer 503 until a write succeeds again), and `accounts` or `monitors` when ' +
    'MASTER_KEY cannot decrypt the stored API keys or webhook secrets (a version removed before `rotate-keys` ' +
    'ran); `ip-data` when a source failed, or ' +
    "when DATA_DIR could not take the embedded data's caches (`served from memory`: every answer is right, but " +
    'each start prepares the data again and the disk needs room). A damaged cache is rebuilt before it is used, ' +
    'and is not reported as degraded once rebuilt (the log has a warning). `ip-data` lists each loaded source ' +
    'with its age (a database’s build date, a feed’s download time).',
  operationId: 'getReadiness',
  tags: ['operations'],
  security: [],
  response: { 200: ReadyBody, 503: ReadyBody },
};

export interface HealthPluginOptions {
  readiness: Readiness;
}

/** Liveness and readiness for orchestrators and load balancers; outside /api/v1, so never rate-limited. */
export const healthPlugin: FastifyPluginAsyncTypebox<HealthPluginOptions> = async (app, { readiness }) => {
  app.get('/healthz', { schema: healthRouteSchema }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', { schema: readinessRouteSchema }, async (_request, reply) => {
    const report = readiness.report();
    return reply.code(report.status === 'starting' ? 503 : 200).send(report);
  });
};
