import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { goIndentedJson } from '../http/go-json.ts';
import { agentTool, RATE_LIMITED } from '../http/route-config.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { type PortChecker, parsePortNumber } from './checker.ts';
import { PORT_HINT, portRouteSchema, textPortRouteSchema } from './schema.ts';

/** `203.0.113.7:22 reachable in 12.3 ms`, or `… not reachable (timeout)` */
const PORT_AGENT_TOOL = agentTool<{
  ip: string;
  port: number;
  reachable: boolean;
  time_ms: number | null;
  reason: string | null;
}>(
  'port_check',
  (answer) =>
    `${answer.ip}:${answer.port} ${answer.reachable ? `reachable in ${answer.time_ms} ms` : `not reachable (${answer.reason})`} from this service`,
);

export interface PortPluginOptions {
  checker: PortChecker;
  cap: InFlightCap;
}

// /port/{n} is outside /api/v1 but counted like it.
const CONFIG = { ...RATE_LIMITED, parameterHints: { n: PORT_HINT } };

export const portPlugin: FastifyPluginAsyncTypebox<PortPluginOptions> = async (app, { checker, cap }) => {
  /** The policy is asked before a slot is taken: a refused caller costs no socket. */
  const checkCaller = (request: FastifyRequest, port: number) => {
    const refusal = checker.refusal(request.clientIp);
    if (refusal !== null) throw apiErrors.badRequest(`Cannot check a port of your address: ${refusal}.`);
    return withinInFlightCap(cap, request, () => checker.check(request.clientIp, port));
  };

  app.get(
    '/api/v1/port/:n',
    { schema: portRouteSchema, config: { ...CONFIG, agentTool: PORT_AGENT_TOOL }, exposeHeadRoute: false },
    async (request, reply) => {
      const port = parsePortNumber(request.params.n);
      if (port === null) throw apiErrors.invalidPathParameter('n', PORT_HINT);
      reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
      return checkCaller(request, port);
    },
  );

  app.get(
    '/port/:n',
    { schema: textPortRouteSchema, config: CONFIG, exposeHeadRoute: false },
    async (request, reply) => {
      reply.type('application/json').header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
      const port = parsePortNumber(request.params.n);
      if (port === null)
        return sendBytes(reply.code(400), { status: 400, error: `invalid port: ${lastSegment(request.params.n)}` });
      const { ip, reachable } = await checkCaller(request, port);
      return sendBytes(reply, { ip, port, reachable });
    },
  );
};

/** As bytes: Fastify appends `; charset=utf-8` to a JSON type sent as a string, and echoip sends none. */
function sendBytes(reply: FastifyReply, fields: Record<string, string | number | boolean>): FastifyReply {
  return reply.send(Buffer.from(goIndentedJson(fields)));
}

/** echoip names the port as Go's filepath.Base names the path's last element: `/port/` is "port". */
function lastSegment(n: string): string {
  return n === '' ? 'port' : n;
}
