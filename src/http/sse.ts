import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-cache: a stream is live; X-Accel-Buffering: no keeps nginx from buffering it, which would
  // hold events back.
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/**
 * The `id:` of every event: `netinfo.<stream>.<seq>`, the stream a random 64-bit hex name, seq
 * counting its events from 1. A stream is never resumed (its tool is killed when the client
 * leaves), so an id's only use is to tell a reconnect (`Last-Event-ID`) that its stream is over.
 * The shape alone says it is ours: any instance recognises it with no shared state and no secret.
 * It is not signed because a forged id gains nothing a replayed real one would not: a 204 that does
 * no work.
 */
const EVENT_ID = /^netinfo\.[0-9a-f]{16}\.[1-9][0-9]{0,9}$/;

export function isStreamEventId(value: string): boolean {
  return EVENT_ID.test(value);
}

export interface EventStream {
  readonly id: string;
  /** Does nothing after close() or once the client has gone. `id`: the event's own (a stored stream's), else the next `netinfo.<stream>.<seq>`. */
  send(event: object, id?: string): void;
  /** An event already written as JSON (one line), with its own id. */
  sendJson(json: string, id: string): void;
  /** Idempotent. */
  close(): void;
  /** Aborted when the client goes away before close(). */
  readonly clientGone: AbortSignal;
}

/** JSON.stringify escapes line breaks, so the data is one line. */
export function formatEvent(id: string, event: object): string {
  return `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Fastify's serialiser and onSend hooks do not run for a stream. The status and headers (with those
 * the onRequest hooks set) go at once, so a client knows the stream is open before the first event.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply): EventStream {
  reply.hijack();
  const response = reply.raw;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  response.writeHead(200, { ...headers, ...SSE_HEADERS });
  response.flushHeaders();
  // Events are small and must not wait for Nagle's algorithm to coalesce them.
  request.raw.socket?.setNoDelay?.(true);

  const gone = new AbortController();
  response.on('close', () => {
    if (!response.writableEnded) gone.abort();
  });
  const writable = () => !response.writableEnded && !response.destroyed;
  const id = randomBytes(8).toString('hex');
  let seq = 0;
  return {
    id,
    clientGone: gone.signal,
    send(event, eventId) {
      if (writable()) response.write(formatEvent(eventId ?? `netinfo.${id}.${++seq}`, event));
    },
    sendJson(json, eventId) {
      if (writable()) response.write(`id: ${eventId}\ndata: ${json}\n\n`);
    },
    close() {
      if (writable()) response.end();
    },
  };
}
