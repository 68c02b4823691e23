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
import { PingEvent } from './events.ts';
import { createPingSession, pingTimeLimitMs } from './session.ts';
import { createTcpPingSession, TCP_PING_DEFAULT_PORT, tcpPingTimeLimitMs } from './tcp-session.ts';

export const PING_MIN_COUNT = 1;
export const PING_MAX_COUNT = 10;
export const PING_DEFAULT_COUNT = 4;

const EVENTS = `**Events**, in this order: \`start\`; then for each echo request, seq 1 to count, one \`reply\` or one
\`timeout\`, in the order ping reports them (one request a second); then \`done\`. A request answered by an ICMP error
(host or network unreachable, prohibited, TTL exceeded) is a \`timeout\` with \`reason: "icmp_error"\`, \`from\` and
\`message\`; the spec has no event of its own for it. A \`timeout\` with \`reason: "no_reply"\` is sent when the next
request goes out unanswered (ping -O), and for the last request when ping gives up on it (1 s, or twice the longest
round trip); should the reply still come, it follows as a \`reply\` with \`late: true\` and counts as received.
Duplicate replies are not sent; \`done.duplicates\` counts them. \`packet_loss\` is a percentage (0-100).

**TCP ping** (\`protocol=tcp\`, \`port\` default 443): each request is a TCP connect to the port, timed by the service
itself (no tool runs), one a second (or as soon as the previous one ended, when it took longer). A connect that
succeeds is a \`reply\` with the connect time and \`ttl\` null, and the connection is closed at once, nothing sent; one
that fails is a \`timeout\` with \`reason\` \`timeout\` (nothing within 2 s), \`refused\` (a reset: nothing listens
there) or \`unreachable\` (an ICMP error or no route). A closed port is a result, not an error. \`done\` is the same
summary (\`duplicates\` always 0).

Example:
\`\`\`
id: netinfo.3f9a0c1be27d4a86.1
data: {"type":"start","host":"example.com","resolved_ip":"192.0.2.10"}

id: netinfo.3f9a0c1be27d4a86.2
data: {"type":"reply","seq":1,"ip":"192.0.2.10","time_ms":11.2,"ttl":56}

id: netinfo.3f9a0c1be27d4a86.3
data: {"type":"timeout","seq":2,"reason":"no_reply"}

id: netinfo.3f9a0c1be27d4a86.4
data: {"type":"done","alive":true,"packets_sent":2,"packets_received":1,"packet_loss":50,"min_ms":11.2,"avg_ms":11.2,"max_ms":11.2,"duplicates":0}
\`\`\``;

interface PingQuery extends ProbeQuery {
  /** Filled in with the default by validation when absent. */
  count?: number;
  protocol?: 'icmp' | 'tcp';
  port?: number;
}

export function registerPingRoute(app: FastifyInstance, deps: ProbeRouteDeps): void {
  app.get<{ Querystring: PingQuery }>(
    '/api/v1/ping',
    {
      config: {
        ...streamRouteConfig,
        parameterHints: {
          ...probeParameterHints,
          count: `must be a whole number from ${PING_MIN_COUNT} to ${PING_MAX_COUNT}`,
          protocol: 'must be icmp or tcp',
          port: 'must be a whole number from 1 to 65535',
        },
      },
      schema: {
        summary: 'Ping a host (ICMP echo or TCP connect): live results as Server-Sent Events',
        description: `${EVENTS}\n\n${streamRules('ping', `ICMP: count + 5 seconds, ${pingTimeLimitMs(PING_MAX_COUNT) / 1000} s at most; TCP: 2 s a request + 5 seconds, ${tcpPingTimeLimitMs(PING_MAX_COUNT) / 1000} s at most`)}`,
        tags: ['ping'],
        querystring: Type.Object({
          host: probeQueryProperties.host,
          count: Type.Optional(
            Type.Integer({
              minimum: PING_MIN_COUNT,
              maximum: PING_MAX_COUNT,
              default: PING_DEFAULT_COUNT,
              description: `Echo requests to send, one a second: ${PING_MIN_COUNT} to ${PING_MAX_COUNT}.`,
            }),
          ),
          family: probeQueryProperties.family,
          protocol: Type.Optional(
            Type.Union([Type.Literal('icmp'), Type.Literal('tcp')], {
              default: 'icmp',
              description: '`icmp`: echo requests sent by ping. `tcp`: TCP connects to `port`, timed by the service.',
            }),
          ),
          port: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 65535,
              description: `TCP port to connect to, with \`protocol=tcp\` only (default ${TCP_PING_DEFAULT_PORT}); given with \`icmp\` it is a 400.`,
            }),
          ),
          api_key: probeQueryProperties.api_key,
        }),
        response: streamResponses(
          PingEvent,
          'The ping stream (text/event-stream); each message is one of these events.',
        ),
      },
    },
    async (request, reply) => {
      const count = request.query.count ?? PING_DEFAULT_COUNT;
      const { protocol = 'icmp', port } = request.query;
      if (protocol === 'tcp') {
        return handleProbeRequest(request, reply, deps, {
          name: 'tcp_ping',
          timeLimitMs: tcpPingTimeLimitMs(count),
          createSession: (target, emit) =>
            createTcpPingSession({ ...target, port: port ?? TCP_PING_DEFAULT_PORT, count, emit }),
        });
      }
      if (port !== undefined) throw apiErrors.invalidParameter('port', 'is only for protocol=tcp (ICMP has no ports)');
      return handleProbeRequest(request, reply, deps, {
        name: 'ping',
        timeLimitMs: pingTimeLimitMs(count),
        createSession: (target, emit) => createPingSession({ ...target, count, emit }),
      });
    },
  );
}
