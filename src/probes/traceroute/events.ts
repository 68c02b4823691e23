import { type Static, Type } from 'typebox';
import { StartEvent, StreamErrorEvent } from '../stream/events.ts';

/** The traceroute stream's events: the spec's, plus the optional field documented here. */

export const TracerouteHopEvent = Type.Object(
  {
    type: Type.Literal('hop'),
    hop: Type.Integer({ minimum: 1, description: 'Hop number (the probe TTL), from 1, increasing by 1.' }),
    ip: Type.Union([Type.String(), Type.Null()], {
      description: 'Address that answered the probe; null for a silent hop (`*`: no answer within 2 s).',
    }),
    hostname: Type.Union([Type.String(), Type.Null()], {
      description:
        'Reverse name (PTR) of ip when it was found within TRACEROUTE_HOSTNAME_WAIT_MS, else ip itself (as traceroute prints a hop without a name); null for a silent hop.',
    }),
    rtt_ms: Type.Union([Type.Number(), Type.Null()], {
      description: 'Round-trip time of the probe in milliseconds; null for a silent hop.',
    }),
    annotation: Type.Optional(
      Type.String({
        description:
          "traceroute's mark on the answer, present only when it printed one: `!H` host, `!N` network, `!P` protocol unreachable, `!X` administratively prohibited, `!F-<mtu>` fragmentation needed, `!<code>` another ICMP code.",
      }),
    ),
  },
  { additionalProperties: false, description: 'One hop, sent as soon as traceroute prints it.' },
);

export const TracerouteDoneEvent = Type.Object(
  {
    type: Type.Literal('done'),
    total_hops: Type.Integer({
      description: 'Number of the last hop probed: the destination when reached, else where traceroute stopped.',
    }),
    reached: Type.Boolean({ description: 'The destination itself answered (whatever its annotation).' }),
  },
  { additionalProperties: false, description: 'Last event of a completed run.' },
);

export const TracerouteEvent = Type.Union([StartEvent, TracerouteHopEvent, TracerouteDoneEvent, StreamErrorEvent]);

export type TracerouteHopEvent = Static<typeof TracerouteHopEvent>;
export type TracerouteDoneEvent = Static<typeof TracerouteDoneEvent>;
export type TracerouteEvent = Static<typeof TracerouteEvent>;
