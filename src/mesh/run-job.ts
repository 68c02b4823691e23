import type { FastifyInstance } from 'fastify';
import type { Job } from './job.ts';
import { MEASUREMENT_TYPES } from './measurement-types.ts';
import type { ProbeEnd } from './store.ts';

/** Where a probe's events go: appended in order, the last one with how the probe ended. */
export type ProbeSink = (event: Record<string, unknown>, end?: ProbeEnd) => Promise<void>;

/**
 * Runs one probe on this node as a request to the type's own route, made in this process: the
 * node's own validation, target policy, caps and time limits apply, and the events and answers are
 * the route's, byte for byte. `internal` marks the request for the rate limiter, which the caller
 * already paid on the node that took the measurement.
 */
export async function runJob(
  app: FastifyInstance,
  job: Job,
  internal: Record<string, string>,
  sink: ProbeSink,
): Promise<void> {
  const type = MEASUREMENT_TYPES[job.type];
  const query = new URLSearchParams({ [type.target]: job.target, ...job.options });
  const response = await app.inject({
    method: 'GET',
    url: `${type.route}?${query}`,
    remoteAddress: job.client_ip,
    headers: { ...internal, accept: type.stream ? 'text/event-stream' : 'application/json' },
    payloadAsStream: true,
  });
  const node = job.node;
  if (!type.stream || response.statusCode !== 200) {
    let body: unknown;
    const text = await readAll(response.stream());
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: text };
    }
    if (response.statusCode === 200) {
      await sink({ type: 'result', node, result: body }, { status: 'finished', result: body });
      return;
    }
    const message = errorText(body, response.statusCode);
    await sink(
      { type: 'error', node, status: response.statusCode, message },
      { status: 'failed', error: message, http_status: response.statusCode },
    );
    return;
  }
  let ended = false;
  for await (const event of sseEvents(response.stream())) {
    if (ended) continue;
    const withNode = { ...event, node };
    if (event.type === 'done') {
      ended = true;
      const { type: _type, ...summary } = event;
      await sink(withNode, { status: 'finished', result: summary });
    } else if (event.type === 'error') {
      ended = true;
      await sink(withNode, { status: 'failed', error: String(event.message) });
    } else {
      await sink(withNode);
    }
  }
  if (!ended) {
    const message = 'the stream ended without a result';
    await sink({ type: 'error', node, message }, { status: 'failed', error: message });
  }
}

function errorText(body: unknown, status: number): string {
  const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  return typeof error === 'string' ? error : `the route answered ${status}`;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The `data:` objects of a Server-Sent Events stream, as they arrive (one data line per event: http/sse.ts). */
export async function* sseEvents(stream: NodeJS.ReadableStream): AsyncGenerator<Record<string, unknown>> {
  let buffer = '';
  // A chunk may end inside a character: the decoder keeps its first bytes for the next.
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk as Buffer, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of message.split('\n')) {
        if (line.startsWith('data: ')) yield JSON.parse(line.slice(6)) as Record<string, unknown>;
      }
      end = buffer.indexOf('\n\n');
    }
  }
}
