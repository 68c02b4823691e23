import { Type } from 'typebox';
import { describeTimeLimit } from '../stream/probe-tool.ts';
import { probeQueryProperties, streamResponses, streamRules } from '../stream/schemas.ts';
import { PingEvent } from './events.ts';
import { TCP_PING_DEFAULT_PORT, TCP_PING_TIMEOUT_MS } from './tcp-session.ts';
import { PING_TOOL, TCP_PING_TOOL } from './tool.ts';

export const PING_MIN_COUNT = 1;
export const PING_MAX_COUNT = 10;
export const PING_DEFAULT_COUNT = 4;

const EVENTS = `**Events**, in this order: \`start\`; then for each echo request, seq 1 to count, one \`reply\` or one
\`timeout\`, in the order ping reports them (one request a second); then \`done\`. A request answered by an ICMP error
(host or network unreachable, prohibited, TTL exceeded) is a \`timeout\` with \`reason: "icmp_error"\`, \`from\` and
\`message\`; the spec has no event of its own for it. A \`timeout\` with \`reason: "no_reply"\` is sent when the next
request goes out unanswered (ping -O), and for the last request when ping gives up on it (1 s, or twice the longest
round trip; ping never prints that one, the service adds it); should the reply still come, it follows as a \`reply\`
with \`late: true\` and counts as received. Duplicate replies are not sent; \`done.duplicates\` counts them.
\`packet_loss\` is a percentage (0-100). ping is iputils \`ping -n -O\`, without its own deadline (\`-w\`), so an
unreachable host gets all \`count\` results instead of ping stopping at the first ICMP error.

**TCP ping** (\`protocol=tcp\`, \`port\` default ${TCP_PING_DEFAULT_PORT}): each request is a TCP connect to the port,
timed by the service itself from the connect call to the SYN-ACK (no tool runs), one a second (or as soon as the
previous one ended, when it took longer: never two at a time). A connect that succeeds is a \`reply\` with the connect
time and \`ttl\` null, and the connection is closed at once, nothing sent; one that fails is a \`timeout\` with
\`reason\` \`timeout\` (nothing within ${TCP_PING_TIMEOUT_MS / 1000} s), \`refused\` (a reset: nothing listens there) or
\`unreachable\` (an ICMP error or no route). A closed port is a result, not an error. \`done\` is the same summary
(\`duplicates\` always 0). The host rules, caps and rate limits are ICMP's.

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

const TIME_LIMIT = `ICMP: ${describeTimeLimit(PING_TOOL, PING_MAX_COUNT)}; TCP: ${describeTimeLimit(TCP_PING_TOOL, PING_MAX_COUNT)}`;

export const pingRouteSchema = {
  summary: 'Ping a host (ICMP echo or TCP connect): live results as Server-Sent Events',
  description: `${EVENTS}\n\n${streamRules('ping', TIME_LIMIT)}`,
  operationId: 'streamPing',
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
        description:
          'ICMP echo requests, or TCP connects to the port. `icmp`: sent by ping; `tcp`: connects timed by the service.',
      }),
    ),
    port: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 65535,
        description: `TCP port to connect to (default ${TCP_PING_DEFAULT_PORT}). With \`protocol=tcp\` only: given with \`icmp\` it is a 400.`,
      }),
    ),
    api_key: probeQueryProperties.api_key,
  }),
  response: streamResponses(PingEvent, 'The ping stream (text/event-stream); each message is one of these events.'),
};
