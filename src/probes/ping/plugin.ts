import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../../http/errors.ts';
import { agentTool } from '../../http/route-config.ts';
import { type StreamToolAnswer, streamTarget } from '../stream/events.ts';
import { handleProbeRequest, type ProbeRouteDeps } from '../stream/probe-route.ts';
import { probeParameterHints, streamRouteConfig } from '../stream/schemas.ts';
import type { PingDoneEvent } from './events.ts';
import { PING_DEFAULT_COUNT, PING_MAX_COUNT, PING_MIN_COUNT, pingRouteSchema } from './schema.ts';
import { createPingSession } from './session.ts';
import { createTcpPingSession, TCP_PING_DEFAULT_PORT } from './tcp-session.ts';
import { PING_TOOL, TCP_PING_TOOL } from './tool.ts';

/** `example.com (93.184.215.14): 4/4 replies, 0% loss, rtt min/avg/max 11.2/11.9/12.8 ms` */
const PING_AGENT_TOOL = agentTool<StreamToolAnswer<PingDoneEvent>>(
  'ping',
  (answer) =>
    `${streamTarget(answer.events)}: ${answer.packets_received}/${answer.packets_sent} replies, ${answer.packet_loss}% loss${answer.alive ? `, rtt min/avg/max ${answer.min_ms}/${answer.avg_ms}/${answer.max_ms} ms` : ', no reply'}`,
);

export interface PingPluginOptions {
  probes: ProbeRouteDeps;
}

export const pingPlugin: FastifyPluginAsyncTypebox<PingPluginOptions> = async (app, { probes }) => {
  app.get(
    '/api/v1/ping',
    {
      config: {
        ...streamRouteConfig,
        agentTool: PING_AGENT_TOOL,
        parameterHints: {
          ...probeParameterHints,
          count: `must be a whole number from ${PING_MIN_COUNT} to ${PING_MAX_COUNT}`,
          protocol: 'must be icmp or tcp',
          port: 'must be a whole number from 1 to 65535',
        },
      },
      schema: pingRouteSchema,
    },
    async (request, reply) => {
      const { count = PING_DEFAULT_COUNT, protocol = 'icmp', port } = request.query;
      if (protocol === 'tcp') {
        return handleProbeRequest(request, reply, probes, request.query, {
          tool: TCP_PING_TOOL,
          count,
          createSession: (target, emit) =>
            createTcpPingSession({ ...target, port: port ?? TCP_PING_DEFAULT_PORT, count, emit }),
        });
      }
      if (port !== undefined) throw apiErrors.invalidParameter('port', 'is only for protocol=tcp (ICMP has no ports)');
      return handleProbeRequest(request, reply, probes, request.query, {
        tool: PING_TOOL,
        count,
        createSession: (target, emit) => createPingSession({ ...target, count, emit }),
      });
    },
  );
};
