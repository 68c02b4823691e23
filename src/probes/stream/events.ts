import { type Static, Type } from 'typebox';

/** Events both streams share. Each stream's own events live beside its tool (ping/events.ts, traceroute/events.ts). */

export const StartEvent = Type.Object(
  {
    type: Type.Literal('start'),
    host: Type.String({
      description: 'The host asked for, as resolved: a name in lower case (IDN as punycode), or the address.',
    }),
    resolved_ip: Type.String({
      description: 'The address the tool was given (names are resolved once, by the service).',
    }),
  },
  { additionalProperties: false, description: 'First event: the host is resolved and the tool is starting.' },
);
export type StartEvent = Static<typeof StartEvent>;

export const StreamErrorEvent = Type.Object(
  {
    type: Type.Literal('error'),
    message: Type.String({ description: 'What went wrong, for a person to read.' }),
  },
  {
    additionalProperties: false,
    description:
      'Last event when the stream cannot finish: the name does not resolve, the tool is missing or failed, the time limit passed, or the server is shutting down. Events sent before it stay valid.',
  },
);
export type StreamErrorEvent = Static<typeof StreamErrorEvent>;

/** What a stream's MCP tool answers (mcp/call.ts): its `done` event's fields, with every event sent. */
export type StreamToolAnswer<Done> = Omit<Done, 'type'> & { events: readonly { type: string }[] };

/** `example.com (93.184.215.14)`, from the `start` event: the host as resolved. */
export function streamTarget(events: readonly { type: string }[]): string {
  const start = events.find((event): event is StartEvent => event.type === 'start');
  if (!start) return 'the host';
  return start.host === start.resolved_ip ? start.host : `${start.host} (${start.resolved_ip})`;
}
