// Reading Server-Sent Events the strict way the spec frames them: every message exactly
// `id: netinfo.<stream>.<seq>`, `data: <JSON object>` and a blank line, nothing else; within one
// response the stream is the same and seq counts from 1 (issue 28, item 1).
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';

/** Parses a whole stream body, failing on any byte outside the spec's framing. */
export function parseSseBody(body: string): Record<string, unknown>[] {
  if (body === '') return [];
  assert.ok(body.endsWith('\n\n'), `stream must end with a blank line: ${JSON.stringify(body.slice(-80))}`);
  const ids = new EventIds();
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((message) => parseMessage(message, ids));
}

/** Checks that a response's event ids name one stream and count its events from 1. */
class EventIds {
  #stream: string | undefined;
  #seq = 0;
  check(id: string) {
    const [, stream, seq] = /^netinfo\.([0-9a-f]{16})\.(\d+)$/.exec(id) ?? [];
    assert.ok(stream && seq, `not one of our event ids: ${JSON.stringify(id)}`);
    this.#stream ??= stream;
    assert.equal(stream, this.#stream, 'every event of a response names the same stream');
    this.#seq += 1;
    assert.equal(Number(seq), this.#seq, 'event ids count from 1');
  }
}

function parseMessage(message: string, ids: EventIds): Record<string, unknown> {
  const framed = /^id: ([^\n]*)\ndata: ([^\n]*)$/.exec(message);
  assert.ok(framed, `not one id line and one data line: ${JSON.stringify(message)}`);
  ids.check(framed[1] as string);
  const event = JSON.parse(framed[2] as string);
  assert.equal(typeof event, 'object');
  assert.equal(typeof event.type, 'string', `event without type: ${message}`);
  return event;
}

export interface ReceivedEvent {
  event: Record<string, unknown>;
  /** performance.now() when the message's last byte arrived. */
  at: number;
}

export interface OpenedStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Resolves with every event once the server ends the response. */
  done: Promise<ReceivedEvent[]>;
  /** Resolves when the n-th event (from 1) has arrived; rejects if the response ends first. */
  nth(n: number): Promise<ReceivedEvent>;
  /** Drops the connection, as a client that goes away. */
  abort(): void;
  /** The body as received so far (for error responses). */
  body(): string;
}

/** A GET with a real HTTP client (node:http, no agent pooling), read as it arrives. */
export function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      response.setEncoding('utf8');
      const events: ReceivedEvent[] = [];
      const ids = new EventIds();
      const waiters: { n: number; resolve: (event: ReceivedEvent) => void; reject: (error: Error) => void }[] = [];
      let buffer = '';
      let raw = '';
      const done = new Promise<ReceivedEvent[]>((resolveDone, rejectDone) => {
        response.on('data', (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          const at = performance.now();
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (response.statusCode !== 200) continue;
            events.push({ event: parseMessage(message, ids), at });
            for (const waiter of waiters.filter((w) => w.n === events.length))
              waiter.resolve(events.at(-1) as ReceivedEvent);
          }
        });
        response.on('end', () => {
          if (response.statusCode === 200) assert.equal(buffer, '', 'stream ended inside a message');
          resolveDone(events);
          const missed = new Error(`the response (${response.statusCode}) ended after ${events.length} events`);
          for (const waiter of waiters.filter((w) => w.n > events.length)) waiter.reject(missed);
        });
        response.on('error', rejectDone);
        response.on('aborted', () => rejectDone(new Error('aborted')));
      });
      done.catch(() => {});
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        done,
        nth: (n) =>
          new Promise((resolveNth, rejectNth) => {
            const have = events[n - 1];
            if (have) resolveNth(have);
            else if (response.complete) rejectNth(new Error(`the response ended after ${events.length} events`));
            else waiters.push({ n, resolve: resolveNth, reject: rejectNth });
          }),
        abort: () => request.destroy(),
        body: () => raw,
      });
    });
    request.on('error', reject);
  });
}

/** The JSON body of a non-stream response (400, 429). */
export async function readJson(stream: OpenedStream): Promise<Record<string, unknown>> {
  await stream.done.catch(() => {});
  return JSON.parse(stream.body());
}
