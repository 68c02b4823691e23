import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The headers of every Server-Sent Events response, besides those the hooks set (CORS, rate limits, request id). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-cache: a stream is live; X-Accel-Buffering: no keeps nginx from buffering it, which would
  // hold events back.
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/** One Server-Sent Events response. Every message is `data: <JSON>` and a blank line, as the spec says. */
export interface EventStream {
  /** Writes one event at once; does nothing after close() or once the client has gone. */
  send(event: object): void;
  /** Ends the response (idempotent). */
  close(): void;
  /** Aborted when the client goes away before close(). */
  readonly clientGone: AbortSignal;
}

/** The SSE framing of one event. JSON.stringify escapes line breaks, so the message is one line. */
export function formatEvent(event: object): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/**
 * Takes the response over from Fastify (its serialiser and onSend hooks do not run for a stream)
 * and sends the status and headers at once, so a client knows the stream is open before the first
 * event. The headers the onRequest hooks set on the reply are carried over.
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
  return {
    clientGone: gone.signal,
    send(event) {
      if (writable()) response.write(formatEvent(event));
    },
    close() {
      if (writable()) response.end();
    },
  };
}
