import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { agentTool } from '../../http/route-config.ts';
import { type StreamToolAnswer, streamTarget } from '../stream/events.ts';
import { handleProbeRequest } from '../stream/probe-route.ts';
import { probeParameterHints, streamRouteConfig } from '../stream/schemas.ts';
import { createHostnameLookup } from '../traceroute/hostnames.ts';
import type { TraceroutePluginOptions } from '../traceroute/plugin.ts';
import type { MtrDoneEvent } from './events.ts';
import { MTR_DEFAULT_COUNT, MTR_MAX_COUNT, MTR_MIN_COUNT, mtrRouteSchema } from './schema.ts';
import { createMtrSession } from './session.ts';
import { MTR_TOOL } from './tool.ts';

/** The same as traceroute's: MTR shares its deps and TRACEROUTE_HOSTNAME_WAIT_MS. */
/** `example.com (93.184.215.14) reached, 11 hops; worst loss 20% at hop 4 (192.0.2.1); last hop 0% loss, avg 11.9 ms` */
const MTR_AGENT_TOOL = agentTool<StreamToolAnswer<MtrDoneEvent>>('mtr', (answer) => {
  const { hops } = answer;
  const worst = hops.reduce<(typeof hops)[number] | undefined>(
    (found, hop) => (hop.loss > (found?.loss ?? 0) ? hop : found),
    undefined,
  );
  const last = hops.at(-1);
  const worstText = worst ? `; worst loss ${worst.loss}% at hop ${worst.hop} (${worst.ip ?? 'silent'})` : '; no loss';
  const lastText = last ? `; last hop ${last.loss}% loss, avg ${last.avg_ms ?? '-'} ms` : '';
  return `${streamTarget(answer.events)} ${answer.reached ? 'reached' : 'not reached'}, ${hops.length} hops${worstText}${lastText}`;
});

export type MtrPluginOptions = TraceroutePluginOptions;

export const mtrPlugin: FastifyPluginAsyncTypebox<MtrPluginOptions> = async (app, options) => {
  const { probes } = options;
  const hostnameOf = createHostnameLookup(probes.resolver, options.hostnameWaitMs);
  app.get(
    '/api/v1/mtr',
    {
      config: {
        ...streamRouteConfig,
        agentTool: MTR_AGENT_TOOL,
        parameterHints: {
          ...probeParameterHints,
          count: `must be a whole number from ${MTR_MIN_COUNT} to ${MTR_MAX_COUNT}`,
        },
      },
      schema: mtrRouteSchema,
    },
    async (request, reply) => {
      const { count = MTR_DEFAULT_COUNT } = request.query;
      return handleProbeRequest(request, reply, probes, request.query, {
        tool: MTR_TOOL,
        count,
        createSession: (target, emit) => createMtrSession({ ...target, count, hostnameOf, emit }),
      });
    },
  );
};
