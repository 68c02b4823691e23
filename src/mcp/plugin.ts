import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import type { RouteCatalogue } from '../http/route-catalogue.ts';
import type { InternalRequests } from '../limits/internal-request.ts';
import type { ToolCallOutcome } from '../metrics/metrics.ts';
import { VERSION } from '../version.ts';
import { callTool, type ToolResult } from './call.ts';
import type { Cancellations } from './cancellations.ts';
import { deriveTools } from './tools.ts';

const MCP_PATH = '/mcp';
const OPENAPI_RESOURCE = 'netinfo://openapi';
const SESSION_HEADER = 'mcp-session-id';

export interface McpPluginOptions {
  routes: RouteCatalogue;
  internal: InternalRequests;
  cancellations: Cancellations;
  /** Told of each tool call's end (netinfo_mcp_tool_calls_total). */
  onToolCall?: (tool: string, outcome: ToolCallOutcome) => void;
}

const INSTRUCTIONS = `netinfo's network tools: IP geolocation and network facts, ASN, RPKI, DNS, WHOIS/RDAP, abuse contacts, TLS, DNS blacklists, mail authentication, HTTP checks, port reachability, and live ping, traceroute and MTR, from this server or (measure) from many nodes at once.
Each tool is one API request with the API's limits: a call counts as that request against the key sent in the Authorization header (or the public tier). Errors are the API's own messages; a 429 says when the limit resets.
ping, traceroute, mtr and measure report each event as progress and answer when the run ends; cancelling the call stops the run. The OpenAPI document is the resource ${OPENAPI_RESOURCE}.`;

/**
 * The SDK is loaded with the first MCP request (160 ms; +2 MB resident beside the service's data,
 * which shares Ajv and zod's neighbours): a service no agent talks to starts without it.
 */
const sdk = once(async () => {
  const [{ Server }, { WebStandardStreamableHTTPServerTransport }, types, { AjvJsonSchemaValidator }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/validation/ajv-provider.js'),
    ]);
  // A server makes its own Ajv unless given one: a third of a tool call's CPU when made per request.
  return { Server, WebStandardStreamableHTTPServerTransport, types, validator: new AjvJsonSchemaValidator() };
});

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP. Stateless: each POST gets its own server
 * and transport, so any worker or instance answers any message; the session id given at
 * initialisation only names the client's calls, so that a `notifications/cancelled` (a request of
 * its own, perhaps to another process) finds the call it cancels. The key is checked, and
 * protocol messages count nothing, by the rate limiter's own hook (a cost of 0); each tool call is
 * counted by the route it stands for.
 */
export const mcpPlugin: FastifyPluginAsync<McpPluginOptions> = async (app, options) => {
  const { routes, internal, cancellations } = options;
  const onToolCall = options.onToolCall ?? (() => {});
  // The routes are all known once the app is ready (plugins register theirs then).
  const tools = once(async () => deriveTools(routes.routes));
  app.addHook('onReady', async () => {
    await tools();
  });

  app.post(
    MCP_PATH,
    {
      schema: { hide: true },
      // stream: the answer is written here (hijacked), so metrics count it at its end.
      config: { rateLimited: true, rateLimitCost: () => 0, stream: true },
    },
    async (request, reply) => {
      const { Server, WebStandardStreamableHTTPServerTransport, types, validator } = await sdk();
      const session = sessionOf(request);
      const connection = new AbortController();
      const server = new Server(
        { name: 'netinfo', title: 'netinfo network tools', version: VERSION },
        { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
      );
      const listed = await tools();
      const byName = new Map(listed.map((tool) => [tool.name, tool]));

      server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
        tools: listed.map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          annotations: { title: tool.title, readOnlyHint: true, openWorldHint: true },
        })),
      }));
      server.setRequestHandler(types.CallToolRequestSchema, async (call, extra): Promise<ToolResult> => {
        const tool = byName.get(call.params.name);
        if (tool === undefined) {
          throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`);
        }
        const token = call.params._meta?.progressToken;
        const cancel = session === undefined ? undefined : cancellations.watch(`${session} ${String(extra.requestId)}`);
        const signal = AbortSignal.any([extra.signal, connection.signal, ...(cancel ? [cancel.signal] : [])]);
        try {
          const result = await callTool(app, tool, call.params.arguments ?? {}, {
            clientIp: request.clientIp,
            authorization: request.headers.authorization,
            requestId: `${request.id}.${String(extra.requestId)}`,
            signal,
            uncounted: () => internal.headers(request.caller),
            ...(token === undefined
              ? {}
              : {
                  progress: (count, message) => {
                    extra
                      .sendNotification({
                        method: 'notifications/progress',
                        params: { progressToken: token, progress: count, message },
                      })
                      .catch(() => {});
                  },
                }),
          });
          onToolCall(tool.name, signal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok');
          return result;
        } catch (error) {
          if (signal.aborted) onToolCall(tool.name, 'cancelled');
          throw error;
        } finally {
          cancel?.release();
        }
      });
      server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({
        resources: [
          {
            uri: OPENAPI_RESOURCE,
            name: 'openapi',
            title: 'netinfo API (OpenAPI 3.1)',
            description: 'The OpenAPI document of the REST API the tools call: every parameter and answer field.',
            mimeType: 'application/json',
          },
        ],
      }));
      server.setRequestHandler(types.ReadResourceRequestSchema, async (read) => {
        if (read.params.uri !== OPENAPI_RESOURCE) {
          throw new types.McpError(types.ErrorCode.InvalidParams, `Unknown resource: ${read.params.uri}`);
        }
        const document = await app.inject({
          method: 'GET',
          url: '/api/v1/openapi.json',
          remoteAddress: request.clientIp,
          headers: { ...internal.headers(request.caller), host: request.headers.host ?? 'localhost' },
        });
        return { contents: [{ uri: OPENAPI_RESOURCE, mimeType: 'application/json', text: document.body }] };
      });

      for (const cancelled of cancelledCalls(request.body)) {
        if (session !== undefined) await cancellations.cancel(`${session} ${cancelled}`);
      }
      // A plain JSON answer unless a call asks for progress (an SSE stream then): the spec lets the
      // server choose, and JSON costs about a sixth less CPU per call (bench: mcp-ip).
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !wantsProgress(request.body),
      });
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      const headers: Record<string, string> = {};
      if (isInitialize(request.body) && response.ok) headers[SESSION_HEADER] = randomBytes(16).toString('hex');
      const close = () => void server.close();
      await sendWebResponse(
        reply,
        response,
        headers,
        () => {
          connection.abort(new Error('the client went away'));
          close();
        },
        close,
      );
    },
  );

  // No stream of server-initiated messages (GET) and no session state to end (DELETE): the spec's 405.
  const notOffered = async (request: FastifyRequest) => {
    throw apiErrors.methodNotAllowed(request.method, MCP_PATH, ['POST']);
  };
  app.get(MCP_PATH, { schema: { hide: true } }, notOffered);
  app.delete(MCP_PATH, { schema: { hide: true } }, notOffered);
};

function sessionOf(request: FastifyRequest): string | undefined {
  const value = request.headers[SESSION_HEADER];
  return typeof value === 'string' && /^[0-9a-f]{32}$/.test(value) ? value : undefined;
}

function messages(body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((message): message is Record<string, unknown> => typeof message === 'object' && message !== null);
}

function isInitialize(body: unknown): boolean {
  return messages(body).some((message) => message.method === 'initialize');
}

/** The request ids a client's `notifications/cancelled` name. */
function cancelledCalls(body: unknown): string[] {
  return messages(body)
    .filter((message) => message.method === 'notifications/cancelled')
    .map((message) => (message.params as { requestId?: unknown } | undefined)?.requestId)
    .filter((id) => typeof id === 'string' || typeof id === 'number')
    .map(String);
}

/** The transport reads only the method, the headers and the (already parsed) body. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://localhost${MCP_PATH}`, { method: request.method, headers });
}

/** The transport's answer, with the headers the hooks set (CORS, request id, rate limit); `gone` when the client leaves early, else `done`. */
async function sendWebResponse(
  reply: FastifyReply,
  response: Response,
  extra: Record<string, string>,
  gone: () => void,
  done: () => void,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  raw.writeHead(response.status, { ...headers, ...extra });
  raw.on('close', () => {
    if (!raw.writableEnded) gone();
  });
  if (response.body === null) {
    raw.end();
    done();
    return;
  }
  raw.flushHeaders();
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
  body.on('error', () => raw.destroy());
  body.pipe(raw);
  raw.on('finish', done);
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** A message of the POST gives a progress token: its notifications need the SSE stream. */
function wantsProgress(body: unknown): boolean {
  return messages(body).some(
    (message) =>
      (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta?.progressToken !== undefined,
  );
}
