import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../../http/errors.ts';
import { handleProbeRequest, type ProbeRouteDeps } from '../stream/probe-route.ts';
import { probeParameterHints, streamRouteConfig } from '../stream/schemas.ts';
import { createHostnameLookup } from './hostnames.ts';
import { tracerouteRouteSchema } from './schema.ts';
import { createTracerouteSession } from './session.ts';
import { TRACEROUTE_TOOL } from './tool.ts';

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
