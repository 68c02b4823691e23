import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { currentSession, requireCsrfToken } from '../accounts/account-http.ts';
import type { Accounts } from '../accounts/accounts.ts';
import { apiErrors } from '../http/errors.ts';
import { exactValidatorCompiler } from '../http/validators.ts';
import type { Plan } from '../storage/repository.ts';
import { monitorDeliveriesRouteSchema, monitorIncidentsRouteSchema, monitorRunsRouteSchema } from './history-schema.ts';
import {
  changeMonitorRouteSchema,
  createMonitorRouteSchema,
  deleteMonitorRouteSchema,
  listMonitorsRouteSchema,
  MONITOR_BODY_LIMIT_BYTES,
  monitorRouteSchema,
} from './schema.ts';
import type { MonitorOwner, MonitorService } from './service.ts';
import { deliveryView, incidentView, runView } from './views.ts';

export interface MonitorsPluginOptions {
  service: MonitorService;
  accounts: Accounts;
}

const PREFIX = '/api/v1/monitors';
const LISTED = 100;

export const monitorsPlugin: FastifyPluginAsyncTypebox<MonitorsPluginOptions> = async (app, { service, accounts }) => {
  /** The account of the API key, else of the session (whose changes need its CSRF token). */
  async function owner(request: FastifyRequest, changes: boolean): Promise<MonitorOwner> {
    const caller = request.caller;
    if (caller?.accountId !== undefined && caller.tier !== 'public') {
      return { accountId: caller.accountId, plan: caller.tier as Plan };
    }
    const session = await currentSession(accounts, request);
    if (!session) throw apiErrors.monitorsNeedAccount();
    if (changes) requireCsrfToken(accounts, request, session);
    return { accountId: session.account.id, plan: session.account.plan };
  }
  app.addHook('onRoute', (route) => {
    route.config = {
      ...route.config,
      agentTool: { none: "an account's own settings, changed from the dashboard or with its key; tools only look" },
    };
  });
  const write = { bodyLimit: MONITOR_BODY_LIMIT_BYTES, validatorCompiler: exactValidatorCompiler() };

  app.post(PREFIX, { ...write, schema: createMonitorRouteSchema }, async (request, reply) => {
    const created = await service.create(await owner(request, true), request.body);
    request.log.info({ monitor: created.id, type: created.type }, 'monitor created');
    return reply.code(201).send(created);
  });

  app.get(PREFIX, { schema: listMonitorsRouteSchema }, async (request) => {
    const { accountId } = await owner(request, false);
    const monitors = await service.repository.listMonitors(accountId);
    return { monitors: await Promise.all(monitors.map((monitor) => service.view(monitor))) };
  });

  app.get(`${PREFIX}/:id`, { schema: monitorRouteSchema }, async (request) =>
    service.view(await service.owned(await owner(request, false), request.params.id)),
  );

  app.patch(`${PREFIX}/:id`, { ...write, schema: changeMonitorRouteSchema }, async (request) =>
    service.change(await owner(request, true), request.params.id, request.body),
  );

  app.delete(`${PREFIX}/:id`, { schema: deleteMonitorRouteSchema }, async (request, reply) => {
    await service.remove(await owner(request, true), request.params.id);
    request.log.info({ monitor: request.params.id }, 'monitor deleted');
    return reply.code(204).send();
  });

  app.get(`${PREFIX}/:id/runs`, { schema: monitorRunsRouteSchema }, async (request) => {
    const monitor = await service.owned(await owner(request, false), request.params.id);
    const limit = request.query.limit ?? 100;
    const cursor = request.query.before?.split('-');
    const before = cursor ? { startedAt: Number(cursor[0]), id: String(cursor[1]) } : undefined;
    const runs = await service.repository.listRuns(monitor.id, limit + 1, before);
    const page = runs.slice(0, limit);
    const last = page.at(-1);
    return {
      runs: page.map(runView),
      next: runs.length > limit && last ? `${last.startedAt}-${last.id}` : null,
    };
  });

  app.get(`${PREFIX}/:id/incidents`, { schema: monitorIncidentsRouteSchema }, async (request) => {
    const monitor = await service.owned(await owner(request, false), request.params.id);
    return { incidents: (await service.repository.listIncidents(monitor.id, LISTED)).map(incidentView) };
  });

  app.get(`${PREFIX}/:id/deliveries`, { schema: monitorDeliveriesRouteSchema }, async (request) => {
    const monitor = await service.owned(await owner(request, false), request.params.id);
    return { deliveries: (await service.repository.listDeliveries(monitor.id, LISTED)).map(deliveryView) };
  });
};
