import { type Static, Type } from 'typebox';
import { StartEvent, StreamErrorEvent } from '../stream/events.ts';

/** The ping stream's events: the spec's, plus the optional fields documented here. */

export const PingReplyEvent = Type.Object(
  {
    type: Type.Literal('reply'),
    seq: Type.Integer({ minimum: 1, description: 'Echo request number, from 1 to count.' }),
    ip: Type.String({ description: 'Address that answered.' }),
    time_ms: Type.Number({
      description:
        'Round-trip time in milliseconds, as ping prints it (3 significant digits, at most 3 decimals); for a TCP ping, the time the connect took (to the SYN-ACK), measured by the service, 3 decimals.',
    }),
    ttl: Type.Union([Type.Integer(), Type.Null()], {
      description: 'TTL (IPv6: hop limit) of the reply; null for a TCP ping (a connect does not see it).',
    }),
    late: Type.Optional(
      Type.Literal(true, {
        description:
          'Present when a `timeout` (reason `no_reply`) was already sent for this seq: the reply came after the next request went out. It counts as received in `done`, as in ping.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'An echo reply. Duplicate replies to one seq are not sent (see `done.duplicates`).',
  },
);

export const PingTimeoutEvent = Type.Object(
  {
    type: Type.Literal('timeout'),
    seq: Type.Integer({ minimum: 1 }),
    reason: Type.Union(
      [
        Type.Literal('no_reply'),
        Type.Literal('icmp_error'),
        Type.Literal('timeout'),
        Type.Literal('refused'),
        Type.Literal('unreachable'),
      ],
      {
        description:
          'ICMP: `no_reply`: nothing came back before the next request was sent (for the last request: before ping gave up); `icmp_error`: a router answered with an ICMP error instead (destination/host/network unreachable, administratively prohibited, TTL exceeded...). TCP: `timeout`: no answer to the connect within 2 s; `refused`: the host answered with a reset (nothing listens on the port); `unreachable`: an ICMP error or no route stopped the connect.',
      },
    ),
    from: Type.Optional(Type.String({ description: '`icmp_error` only: the router that sent the error.' })),
    message: Type.Optional(
      Type.String({ description: "`icmp_error` only: ping's wording, e.g. `Destination Host Unreachable`." }),
    ),
  },
  { additionalProperties: false, description: 'An echo request (a TCP connect) that got no reply.' },
);

export const PingDoneEvent = Type.Object(
  {
    type: Type.Literal('done'),
    alive: Type.Boolean({ description: 'At least one reply came back.' }),
    packets_sent: Type.Integer({ description: 'Echo requests sent (equals count unless ping failed midway).' }),
    packets_received: Type.Integer({ description: 'Requests answered (each seq once, late replies included).' }),
    packet_loss: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Percentage of requests not answered, 0-100, rounded to 2 decimals (e.g. 33.33).',
    }),
    min_ms: Type.Number({ description: 'Fastest round trip in ms; 0 when nothing came back.' }),
    avg_ms: Type.Number({ description: 'Mean round trip in ms (3 decimals); 0 when nothing came back.' }),
    max_ms: Type.Number({ description: 'Slowest round trip in ms; 0 when nothing came back.' }),
    duplicates: Type.Integer({ description: 'Extra replies to an already answered seq (not sent as events).' }),
  },
  { additionalProperties: false, description: 'Last event of a completed run.' },
);

export const PingEvent = Type.Union([StartEvent, PingReplyEvent, PingTimeoutEvent, PingDoneEvent, StreamErrorEvent]);

export type PingReplyEvent = Static<typeof PingReplyEvent>;
export type PingTimeoutEvent = Static<typeof PingTimeoutEvent>;
export type PingDoneEvent = Static<typeof PingDoneEvent>;
export type PingEvent = Static<typeof PingEvent>;
