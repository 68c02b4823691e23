import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { handleProbeRequest } from '../stream/probe-route.ts';
import { probeParameterHints, streamRouteConfig } from '../stream/schemas.ts';
import { createHostnameLookup } from '../traceroute/hostnames.ts';
import type { TraceroutePluginOptions } from '../traceroute/plugin.ts';
import { MTR_DEFAULT_COUNT, MTR_MAX_COUNT, MTR_MIN_COUNT, mtrRouteSchema } from './schema.ts';
import { createMtrSession } from './session.ts';
import { MTR_TOOL } from './tool.ts';

/** The same as traceroute's: MTR shares its deps and TRACEROUTE_HOSTNAME_WAIT_MS. */
export type MtrPluginOptions = TraceroutePluginOptions;

export const mtrPlugin: FastifyPluginAsyncTypebox<MtrPluginOptions> = async (app, options) => {
  const { probes } = options;
  const hostnameOf = createHostnameLookup(probes.resolver, options.hostnameWaitMs);
  app.get(
    '/api/v1/mtr',
    {
      config: {
        ...streamRouteConfig,
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
