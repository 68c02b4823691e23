import type { FastifyInstance } from 'fastify';
import type { Job } from './job.ts';
import { MEASUREMENT_TYPES } from './measurement-types.ts';
import type { ProbeEnd } from './store.ts';

/** Where a probe's events go (each as JSON): appended in order, the last one with how the probe ended. */
export type ProbeSink = (json: string, end?: ProbeEnd) => Promise<void>;

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
  const nodeJson = JSON.stringify(node);
  if (!type.stream || response.statusCode !== 200) {
    const body = await answerJson(response.stream());
    if (response.statusCode === 200) {
      await sink(JSON.stringify({ type: 'result', node, result: body }), { status: 'finished', result: body });
      return;
    }
    const message = errorText(body, response.statusCode);
    await sink(JSON.stringify({ type: 'error', node, status: response.statusCode, message }), {
      status: 'failed',
      error: message,
      http_status: response.statusCode,
    });
    return;
  }
  let ended = false;
  // The route's own JSON, passed on with `node` added as its last member (no parse and re-write of
  // every reply); only the closing events are read, for the probe's result.
  for await (const data of sseData(response.stream())) {
    if (ended) continue;
    const withNode = `${data.slice(0, -1)},"node":${nodeJson}}`;
    const kind = EVENT_TYPE.exec(data)?.[1];
    if (kind === 'done') {
      ended = true;
      const { type: _type, ...summary } = JSON.parse(data);
      await sink(withNode, { status: 'finished', result: summary });
    } else if (kind === 'error') {
      ended = true;
      await sink(withNode, { status: 'failed', error: String(JSON.parse(data).message) });
    } else {
      await sink(withNode);
    }
  }
  if (!ended) {
    const message = 'the stream ended without a result';
    await sink(JSON.stringify({ type: 'error', node, message }), { status: 'failed', error: message });
  }
}

/** Every event of our streams is an object whose first member is its type (http/sse.ts writes them). */
const EVENT_TYPE = /^\{"type":"([a-z_]+)"/;

function errorText(body: unknown, status: number): string {
  const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  return typeof error === 'string' ? error : `the route answered ${status}`;
}

/** An in-process request's answer: its JSON, or its text as `{ error }` when it is not JSON. */
export async function answerJson(stream: NodeJS.ReadableStream): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return { error: text };
  }
}

/** The `data:` lines of a Server-Sent Events stream as they arrive (one data line per event: http/sse.ts). */
export async function* sseData(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
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
        if (line.startsWith('data: {')) yield line.slice(6);
      }
      end = buffer.indexOf('\n\n');
    }
  }
}
