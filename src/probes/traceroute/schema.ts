import { Type } from 'typebox';
import { describeTimeLimit } from '../stream/probe-tool.ts';
import { probeQueryProperties, streamResponses, streamRules } from '../stream/schemas.ts';
import { TRACEROUTE_DEFAULT_TCP_PORT } from './args.ts';
import { TracerouteEvent } from './events.ts';
import { TRACEROUTE_TOOL } from './tool.ts';

const EVENTS = `**Events**, in this order: \`start\`; then one \`hop\` per hop, numbered from 1 and increasing by 1; then
\`done\`. The service runs Debian's traceroute (UDP probes, one per hop, up to 30 hops, 2 s wait) and sends each hop as
soon as traceroute prints it, without waiting for the line's end (traceroute ends a hop's line only when it starts the
next). A **silent hop** (\`*\`: no answer within the wait) is a \`hop\` with \`ip\`, \`hostname\` and \`rtt_ms\` all
null. \`hostname\` is the reverse (PTR) name of ip found through the service's resolver within
TRACEROUTE_HOSTNAME_WAIT_MS (default 200 ms), else the address itself; lookups run in parallel, never hold a hop back
longer than that, and a slow one goes on in the background to fill the cache. An answer carrying an ICMP error mark
(\`!H\`, \`!N\`, \`!X\`...) has it in \`annotation\`; traceroute stops there. \`reached\` is true when the destination
itself answered.

**Protocols.** \`protocol=udp\` (default): traceroute's default method, UDP datagrams to rising high ports; the
destination answers port unreachable. \`icmp\`: echo requests (traceroute -I); the destination answers the echo.
\`tcp\`: SYNs to \`port\` (traceroute -T -p, default ${TRACEROUTE_DEFAULT_TCP_PORT}); the destination answers with a
SYN-ACK or a reset, so a path through firewalls that drop UDP and ICMP can still be traced. \`icmp\` and \`tcp\` need
raw sockets: a server whose traceroute lacks them (CAP_NET_RAW) answers them with the \`error\` event \`traceroute
failed: You do not have enough privileges to use this traceroute method.\`

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

export const tracerouteRouteSchema = {
  summary: 'Trace the route to a host: live hops as Server-Sent Events',
  description: `${EVENTS}\n\n${streamRules('traceroute', describeTimeLimit(TRACEROUTE_TOOL))}`,
  operationId: 'streamTraceroute',
  tags: ['traceroute'],
  querystring: Type.Object({
    host: probeQueryProperties.host,
    family: probeQueryProperties.family,
    protocol: Type.Optional(
      Type.Union([Type.Literal('udp'), Type.Literal('icmp'), Type.Literal('tcp')], {
        default: 'udp',
        description:
          "UDP datagrams (traceroute's default), ICMP echo requests (-I) or TCP SYNs to the port (-T). `icmp` and `tcp` need raw sockets on the server.",
      }),
    ),
    port: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 65535,
        description: `Destination port of the TCP probes (default ${TRACEROUTE_DEFAULT_TCP_PORT}). With \`protocol=tcp\` only: given with \`udp\` or \`icmp\` it is a 400.`,
      }),
    ),
    api_key: probeQueryProperties.api_key,
  }),
  response: streamResponses(
    TracerouteEvent,
    'The traceroute stream (text/event-stream); each message is one of these events.',
  ),
};
