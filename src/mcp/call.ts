import type { FastifyInstance } from 'fastify';
import { answerJson, sseData } from '../mesh/run-job.ts';
import { type McpTool, requestOf } from './tools.ts';

/** What MCP's tools/call answers (CallToolResult), as the route's answer says it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolCallContext {
  /** The MCP request's client: the tool's request comes from it, so its limits and caps are the caller's. */
  readonly clientIp: string;
  /** Sent on as it came: the route checks the key and puts the request on its account's tier. */
  readonly authorization: string | undefined;
  readonly requestId: string;
  /** The client cancelled, or went away. */
  readonly signal: AbortSignal;
  /** Headers that let a follow-up read (a measurement's events) go uncounted, made for this caller. */
  readonly uncounted: () => Readonly<Record<string, string>>;
  /** Each event of a stream, as it arrives (MCP progress). */
  readonly progress?: (count: number, message: string) => void;
}

/**
 * A tool call is the request it stands for, made to the route in this process from the MCP
 * client's address with its key: the route's validation, limits (the call counts as that request),
 * target policy, caps, time limits and answer are the HTTP client's, byte for byte.
 */
export async function callTool(
  app: FastifyInstance,
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
  context: ToolCallContext,
): Promise<ToolResult> {
  const request = requestOf(tool, args);
  if ('refused' in request) return failure(400, { error: request.refused });
  const headers: Record<string, string> = {
    accept: tool.stream ? 'text/event-stream' : 'application/json',
    'x-request-id': context.requestId,
  };
  if (context.authorization !== undefined) headers.authorization = context.authorization;
  // Always as JSON: inject sends a string or null `items` as it is, and the route answered 415, not what is wrong with it.
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const response = await app.inject({
    method: tool.method,
    url: request.url,
    remoteAddress: context.clientIp,
    headers,
    ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
    payloadAsStream: true,
    signal: context.signal,
  });
  if (response.statusCode !== 200 || !tool.stream) {
    const body = await answerJson(response.stream());
    if (response.statusCode >= 300) return failure(response.statusCode, body);
    if (tool.follow) return followed(app, tool, tool.follow(body), context);
    return success(tool, body);
  }
  return streamed(tool, response.stream(), context);
}

/** Every event as progress; the answer is the `done` event (its fields) with all the events, or the `error` event as a tool error. */
async function streamed(tool: McpTool, stream: NodeJS.ReadableStream, context: ToolCallContext): Promise<ToolResult> {
  const events = await progressOf(stream, context);
  if (!Array.isArray(events)) return events;
  const last = events.at(-1);
  if (last?.type === 'done') {
    const { type: _type, ...done } = last;
    return success(tool, { ...done, events });
  }
  if (last?.type === 'error') return failure(502, { error: String(last.message), events });
  if (context.signal.aborted) return failure(499, { error: 'Cancelled by the client.', events });
  return failure(502, { error: 'The stream ended without a result.', events });
}

/** A request that started work elsewhere: its events as progress, then its answer (both read uncounted, as the caller). */
async function followed(
  app: FastifyInstance,
  tool: McpTool,
  urls: { events: string; result: string },
  context: ToolCallContext,
): Promise<ToolResult> {
  const read = (url: string, accept: string) =>
    app.inject({
      method: 'GET',
      url,
      remoteAddress: context.clientIp,
      headers: { ...context.uncounted(), accept, 'x-request-id': context.requestId },
      payloadAsStream: true,
      signal: context.signal,
    });
  const events = await progressOf((await read(urls.events, 'text/event-stream')).stream(), context);
  if (!Array.isArray(events)) return events;
  const result = await read(urls.result, 'application/json');
  const body = await answerJson(result.stream());
  return result.statusCode === 200 ? success(tool, body) : failure(result.statusCode, body);
}

/** A stream's events, each told as progress as it arrives; the tool error when the client cancelled midway. */
async function progressOf(
  stream: NodeJS.ReadableStream,
  context: ToolCallContext,
): Promise<Record<string, unknown>[] | ToolResult> {
  const events: Record<string, unknown>[] = [];
  try {
    for await (const data of sseData(stream)) {
      const event = JSON.parse(data) as Record<string, unknown>;
      events.push(event);
      context.progress?.(events.length, eventLine(event));
    }
  } catch (error) {
    if (context.signal.aborted) return failure(499, { error: 'Cancelled by the client.' });
    throw error;
  }
  return events;
}

function success(tool: McpTool, body: unknown): ToolResult {
  // structuredContent is an object: a list answer is `items`.
  const structured = isObject(body) ? body : { items: body };
  return {
    content: [
      { type: 'text', text: summaryOf(tool, body) },
      { type: 'text', text: JSON.stringify(body) },
    ],
    structuredContent: structured,
  };
}

/** A summary that cannot be made (a shape it did not expect) must not cost the caller the answer beside it. */
function summaryOf(tool: McpTool, body: unknown): string {
  try {
    return tool.summary(body);
  } catch (error) {
    return `${tool.title} (no summary: ${(error as Error).message})`;
  }
}

/** The route's error, as the route said it: its message first, its fields (a 429's limit and reset) as structured content. */
function failure(status: number, body: unknown): ToolResult {
  const fields = isObject(body) ? body : { error: String(body) };
  const message = typeof fields.error === 'string' ? fields.error : `The route answered ${status}.`;
  return {
    content: [{ type: 'text', text: `${status}: ${message}` }],
    structuredContent: { status, ...fields },
    isError: true,
  };
}

/** One line for a progress notification: the event's type and its plain fields. */
function eventLine(event: Record<string, unknown>): string {
  const fields = Object.entries(event)
    .filter(([name, value]) => name !== 'type' && value !== null && typeof value !== 'object')
    .map(([name, value]) => `${name}=${value}`);
  const line = [String(event.type ?? 'event'), ...fields].join(' ');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
