import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../../http/errors.ts';
import { agentTool } from '../../http/route-config.ts';
import { type StreamToolAnswer, streamTarget } from '../stream/events.ts';
import { handleProbeRequest, type ProbeRouteDeps } from '../stream/probe-route.ts';
import { probeParameterHints, streamRouteConfig } from '../stream/schemas.ts';
import type { TracerouteDoneEvent, TracerouteHopEvent } from './events.ts';
import { createHostnameLookup } from './hostnames.ts';
import { tracerouteRouteSchema } from './schema.ts';
import { createTracerouteSession } from './session.ts';
import { TRACEROUTE_TOOL } from './tool.ts';

/** `example.com (93.184.215.14) reached in 12 hops (3 silent); last 93.184.215.14 11.9 ms` */
const TRACEROUTE_AGENT_TOOL = agentTool<StreamToolAnswer<TracerouteDoneEvent>>('traceroute', (answer) => {
  const hops = answer.events.filter((event): event is TracerouteHopEvent => event.type === 'hop');
  const silent = new Set(hops.filter((hop) => hop.ip === null).map((hop) => hop.hop)).size;
  const last = hops.findLast((hop) => hop.ip !== null);
  const lastText = last ? `; last answer ${last.ip} at hop ${last.hop}, ${last.rtt_ms} ms` : '';
  return `${streamTarget(answer.events)} ${answer.reached ? 'reached' : 'not reached'} in ${answer.total_hops} hops${silent > 0 ? ` (${silent} silent)` : ''}${lastText}`;
});

export interface TraceroutePluginOptions {
  probes: ProbeRouteDeps;
  /** TRACEROUTE_HOSTNAME_WAIT_MS. */
  hostnameWaitMs: number;
}

export const traceroutePlugin: FastifyPluginAsyncTypebox<TraceroutePluginOptions> = async (app, options) => {
  const { probes } = options;
  const hostnameOf = createHostnameLookup(probes.resolver, options.hostnameWaitMs);
  app.get(
    '/api/v1/traceroute',
    {
      config: {
        ...streamRouteConfig,
        agentTool: TRACEROUTE_AGENT_TOOL,
        parameterHints: {
          ...probeParameterHints,
          protocol: 'must be udp, icmp or tcp',
          port: 'must be a whole number from 1 to 65535',
        },
      },
      schema: tracerouteRouteSchema,
    },
    async (request, reply) => {
      const { protocol = 'udp', port } = request.query;
      if (protocol !== 'tcp' && port !== undefined) {
        throw apiErrors.invalidParameter('port', 'is only for protocol=tcp');
      }
      return handleProbeRequest(request, reply, probes, request.query, {
        tool: TRACEROUTE_TOOL,
        createSession: (target, emit) => createTracerouteSession({ ...target, protocol, port, hostnameOf, emit }),
      });
    },
  );
};
