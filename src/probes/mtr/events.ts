import { type Static, Type } from 'typebox';
import { StartEvent, StreamErrorEvent } from '../stream/events.ts';

const nullableMs = (description: string) =>
  Type.Union([Type.Number(), Type.Null()], { description: `${description}; null while the hop never answered.` });

const hopFields = {
  hop: Type.Integer({ minimum: 1, description: 'Hop number (the probe TTL), from 1.' }),
  ip: Type.Union([Type.String(), Type.Null()], {
    description: 'Address the hop answered from (the latest, should the path change); null while it is silent.',
  }),
  hostname: Type.Union([Type.String(), Type.Null()], {
    description:
      'Reverse name (PTR) of ip when it was found within TRACEROUTE_HOSTNAME_WAIT_MS, else ip itself; null while the hop is silent.',
  }),
  sent: Type.Integer({ minimum: 0, description: 'Probes sent to this hop so far (one a round).' }),
  received: Type.Integer({ minimum: 0, description: 'Probes answered (a late answer included).' }),
  loss: Type.Number({
    minimum: 0,
    maximum: 100,
    description:
      "Percent of the probes no longer awaited that got no answer, 0-100, 2 decimals. A probe is awaited until the hop's next probe goes out (a round later) or mtr ends; in `done` none is.",
  }),
  last_ms: nullableMs('Round trip of the latest answer, ms'),
  avg_ms: nullableMs('Mean round trip, ms (3 decimals)'),
  best_ms: nullableMs('Fastest round trip, ms'),
  worst_ms: nullableMs('Slowest round trip, ms'),
  stdev_ms: nullableMs('Sample standard deviation of the round trips, ms (3 decimals; 0 with one answer)'),
};

export const MtrHopStats = Type.Object(hopFields, { additionalProperties: false, description: "One hop's figures." });

export const MtrHopEvent = Type.Object(
  { type: Type.Literal('hop'), ...hopFields },
  {
    additionalProperties: false,
    description:
      "A hop's figures so far, sent each time they change (an answer, a probe given up, a new address): the same hop repeats with updated figures, and a client keeps the latest per hop.",
  },
);

export const MtrDoneEvent = Type.Object(
  {
    type: Type.Literal('done'),
    hops: Type.Array(MtrHopStats, {
      description: 'The final figures of every hop shown, in hop order (nothing awaited any more).',
    }),
    reached: Type.Boolean({ description: 'The destination itself answered.' }),
  },
  { additionalProperties: false, description: 'Last event of a completed run.' },
);

export const MtrEvent = Type.Union([StartEvent, MtrHopEvent, MtrDoneEvent, StreamErrorEvent]);

export type MtrHopEvent = Static<typeof MtrHopEvent>;
export type MtrDoneEvent = Static<typeof MtrDoneEvent>;
export type MtrEvent = Static<typeof MtrEvent>;
