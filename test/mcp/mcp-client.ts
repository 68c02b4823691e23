// The MCP SDK's own client against the real app listening on loopback, as an agent connects to /mcp.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';

/** Listens on 127.0.0.1 (a free port) and answers the app's base URL. */
export async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A connected SDK client (initialize done); `headers` go with every request (an API key). */
export async function connect(base: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'netinfo-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

/** A JSON-RPC message POSTed to /mcp as a client would (for what the SDK does not let a test choose). */
export function postMcp(
  base: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    ...(signal ? { signal } : {}),
  });
}

/** The initialize request of a raw client: its answer carries the session id. */
export const INITIALIZE = {
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
