import { Type } from 'typebox';
import { describeTimeLimit } from '../stream/probe-tool.ts';
import { probeQueryProperties, streamResponses, streamRules } from '../stream/schemas.ts';
import { MTR_DEFAULT_GRACE_SECONDS, MTR_DEFAULT_MAX_HOPS } from './args.ts';
import { MtrEvent } from './events.ts';
import { MTR_TOOL } from './tool.ts';

export const MTR_MIN_COUNT = 1;
export const MTR_MAX_COUNT = 30;
export const MTR_DEFAULT_COUNT = 10;

const EVENTS = `**Events**, in this order: \`start\`; then \`hop\` events as the rounds go (mtr sends one probe to every
hop each second, \`count\` rounds); then \`done\`. The service runs Debian's mtr-tiny,
\`mtr --raw -n -c <count> -G ${MTR_DEFAULT_GRACE_SECONDS} -m ${MTR_DEFAULT_MAX_HOPS}\` (ICMP probes sent by mtr-packet, which has cap_net_raw from the
package, up to ${MTR_DEFAULT_MAX_HOPS} hops, a ${MTR_DEFAULT_GRACE_SECONDS} s wait for late answers after the last round), and computes each hop's figures from its raw
lines as they come (mtr's own report comes only at the end), with mtr's definitions of loss, best, worst, average and
(sample) standard deviation. A hop's event is sent whenever its figures change (an answer, a probe given up, a new
address), so **the same hop repeats**: keep the latest per hop. A probe is given up (lost) when the hop's next probe
goes out unanswered, a round later; \`loss\` counts only probes no longer awaited, and a late answer still counts as
received. Hops are shown as mtr shows them: up to the destination, or when it never answers, up to one past the
deepest hop that answered. A hop that never answered has \`ip\`, \`hostname\` and the times null and \`loss\` 100.
\`hostname\` is the reverse (PTR) name of ip found through the service's resolver within TRACEROUTE_HOSTNAME_WAIT_MS
(default 200 ms) the first time the address shows up, else the address itself. \`done.hops\` holds every shown hop's
final figures; \`reached\` is true when the destination answered.

Example (\`count=2\`):
\`\`\`
id: netinfo.7c2d5e8a0f1b3946.1
data: {"type":"start","host":"example.com","resolved_ip":"203.0.113.2"}

id: netinfo.7c2d5e8a0f1b3946.2
data: {"type":"hop","hop":1,"ip":"192.0.2.1","hostname":"gw.example.net","sent":1,"received":1,"loss":0,"last_ms":0.41,"avg_ms":0.41,"best_ms":0.41,"worst_ms":0.41,"stdev_ms":0}

id: netinfo.7c2d5e8a0f1b3946.3
data: {"type":"hop","hop":2,"ip":"203.0.113.2","hostname":"203.0.113.2","sent":1,"received":1,"loss":0,"last_ms":8.9,"avg_ms":8.9,"best_ms":8.9,"worst_ms":8.9,"stdev_ms":0}

id: netinfo.7c2d5e8a0f1b3946.4
data: {"type":"hop","hop":1,"ip":"192.0.2.1","hostname":"gw.example.net","sent":2,"received":2,"loss":0,"last_ms":0.5,"avg_ms":0.455,"best_ms":0.41,"worst_ms":0.5,"stdev_ms":0.064}

id: netinfo.7c2d5e8a0f1b3946.5
data: {"type":"hop","hop":2,"ip":"203.0.113.2","hostname":"203.0.113.2","sent":2,"received":1,"loss":50,"last_ms":8.9,"avg_ms":8.9,"best_ms":8.9,"worst_ms":8.9,"stdev_ms":0}

id: netinfo.7c2d5e8a0f1b3946.6
data: {"type":"done","hops":[{"hop":1,"ip":"192.0.2.1","hostname":"gw.example.net","sent":2,"received":2,"loss":0,"last_ms":0.5,"avg_ms":0.455,"best_ms":0.41,"worst_ms":0.5,"stdev_ms":0.064},{"hop":2,"ip":"203.0.113.2","hostname":"203.0.113.2","sent":2,"received":1,"loss":50,"last_ms":8.9,"avg_ms":8.9,"best_ms":8.9,"worst_ms":8.9,"stdev_ms":0}],"reached":true}
\`\`\``;

export const mtrRouteSchema = {
  summary: 'MTR to a host: live per-hop loss and latency as Server-Sent Events',
  description: `${EVENTS}\n\n${streamRules('mtr', describeTimeLimit(MTR_TOOL, MTR_MAX_COUNT))}`,
  operationId: 'streamMtr',
  tags: ['mtr'],
  querystring: Type.Object({
    host: probeQueryProperties.host,
    count: Type.Optional(
      Type.Integer({
        minimum: MTR_MIN_COUNT,
        maximum: MTR_MAX_COUNT,
        default: MTR_DEFAULT_COUNT,
        description: `Rounds to run, one a second (each probes every hop once): ${MTR_MIN_COUNT} to ${MTR_MAX_COUNT}.`,
      }),
    ),
    family: probeQueryProperties.family,
    api_key: probeQueryProperties.api_key,
  }),
  response: streamResponses(MtrEvent, 'The MTR stream (text/event-stream); each message is one of these events.'),
};
