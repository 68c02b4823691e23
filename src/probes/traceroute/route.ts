import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../../http/errors.ts';
import { handleProbeRequest, type ProbeQuery, type ProbeRouteDeps } from '../stream/probe-route.ts';
import {
  probeParameterHints,
  probeQueryProperties,
  streamResponses,
  streamRouteConfig,
  streamRules,
} from '../stream/schemas.ts';
import { TRACEROUTE_DEFAULT_TCP_PORT, type TracerouteProtocol } from './args.ts';
import { TracerouteEvent } from './events.ts';
import { createHostnameLookup } from './hostnames.ts';
import { createTracerouteSession, TRACEROUTE_TIME_LIMIT_MS } from './session.ts';

const EVENTS = `**Events**, in this order: \`start\`; then one \`hop\` per hop, numbered from 1 and increasing by 1; then
\`done\`. The service runs traceroute (UDP probes, one per hop, up to 30 hops, 2 s wait) and sends each hop as soon as
traceroute prints it. A **silent hop** (\`*\`: no answer within the wait) is a \`hop\` with \`ip\`, \`hostname\` and
\`rtt_ms\` all null. \`hostname\` is the reverse (PTR) name of ip found through the service's resolver within
TRACEROUTE_HOSTNAME_WAIT_MS (default 200 ms), else the address itself; lookups run in parallel and never hold a hop back
longer than that. An answer carrying an ICMP error mark (\`!H\`, \`!N\`, \`!X\`...) has it in \`annotation\`; traceroute
stops there. \`reached\` is true when the destination itself answered.

**Protocols.** \`protocol=udp\` (default): traceroute's default method, UDP datagrams to rising high ports; the
destination answers port unreachable. \`icmp\`: echo requests (traceroute -I); the destination answers the echo.
\`tcp\`: SYNs to \`port\` (traceroute -T -p, default 80); the destination answers with a SYN-ACK or a reset, so a path
through firewalls that drop UDP and ICMP can still be traced. \`icmp\` and \`tcp\` need raw sockets: a server whose
service lacks them (CAP_NET_RAW) answers them with an \`error\` event saying traceroute does not have enough privileges.

Example:
\`\`\`
id: netinfo.b41e7d02c9a5f318.1
data: {"type":"start","host":"example.com","resolved_ip":"203.0.113.2"}

id: netinfo.b41e7d02c9a5f318.2
data: {"type":"hop","hop":1,"ip":"192.0.2.1","hostname":"gw.example.net","rtt_ms":0.41}

id: netinfo.b41e7d02c9a5f318.3
data: {"type":"hop","hop":2,"ip":null,"hostname":null,"rtt_ms":null}

id: netinfo.b41e7d02c9a5f318.4
data: {"type":"hop","hop":3,"ip":"203.0.113.2","hostname":"203.0.113.2","rtt_ms":8.93}

id: netinfo.b41e7d02c9a5f318.5
data: {"type":"done","total_hops":3,"reached":true}
\`\`\``;

/** Traceroute's slice of the configuration. */
export interface TracerouteConfig {
  readonly tracerouteHostnameWaitMs: number;
}

export function registerTracerouteRoute(app: FastifyInstance, deps: ProbeRouteDeps, config: TracerouteConfig): void {
  const hostnameOf = createHostnameLookup(deps.resolver, config.tracerouteHostnameWaitMs);
  app.get<{ Querystring: ProbeQuery & { protocol?: TracerouteProtocol; port?: number } }>(
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
      schema: {
        summary: 'Trace the route to a host: live hops as Server-Sent Events',
        description: `${EVENTS}\n\n${streamRules('traceroute', `${TRACEROUTE_TIME_LIMIT_MS / 1000} seconds`)}`,
        tags: ['traceroute'],
        querystring: Type.Object({
          host: probeQueryProperties.host,
          family: probeQueryProperties.family,
          protocol: Type.Optional(
            Type.Union([Type.Literal('udp'), Type.Literal('icmp'), Type.Literal('tcp')], {
              default: 'udp',
              description:
                "`udp` (traceroute's default method), `icmp` (echo requests, -I) or `tcp` (SYNs to `port`, -T). `icmp` and `tcp` need raw sockets on the server.",
            }),
          ),
          port: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 65535,
              description: `Destination port of \`protocol=tcp\` only (default ${TRACEROUTE_DEFAULT_TCP_PORT}); given with \`udp\` or \`icmp\` it is a 400.`,
            }),
          ),
          api_key: probeQueryProperties.api_key,
        }),
        response: streamResponses(
          TracerouteEvent,
          'The traceroute stream (text/event-stream); each message is one of these events.',
        ),
      },
    },
    async (request, reply) => {
      const { protocol = 'udp', port } = request.query;
      if (protocol !== 'tcp' && port !== undefined) {
        throw apiErrors.invalidParameter('port', 'is only for protocol=tcp');
      }
      return handleProbeRequest(request, reply, deps, {
        name: 'traceroute',
        timeLimitMs: TRACEROUTE_TIME_LIMIT_MS,
        createSession: (target, emit) => createTracerouteSession({ ...target, protocol, port, hostnameOf, emit }),
      });
    },
  );
}
