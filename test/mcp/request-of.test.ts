import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callTool } from '../../src/mcp/call.ts';
import { deriveTools, type McpTool, requestOf } from '../../src/mcp/tools.ts';
import { buildTestApp } from '../support/app.ts';

// The real routes' tools: what a call's arguments become is read from them, not from a fixture.
async function tools(): Promise<Map<string, McpTool>> {
  const app = await buildTestApp();
  await app.ready();
  await app.close();
  return new Map(deriveTools(app.routeCatalogue.routes).map((tool) => [tool.name, tool]));
}

test('a call becomes its route request: path parameters encoded (no way out of the path), the rest as the query', async () => {
  const byName = await tools();
  const ipInfo = byName.get('ip_info') as McpTool;
  assert.deepEqual(requestOf(ipInfo, { ip: '8.8.8.8', fields: 'ip,location' }), {
    url: '/api/v1/json/8.8.8.8?fields=ip%2Clocation',
  });
  assert.deepEqual(requestOf(ipInfo, { ip: '../../account' }), { url: '/api/v1/json/..%2F..%2Faccount' });
  assert.deepEqual(requestOf(ipInfo, {}), { refused: "Missing required parameter 'ip'." });
  // A dot segment would be folded into the path by URL parsing, reaching /api/v1/ instead.
  for (const dots of ['..', '.', '%2E%2e']) assert.ok('refused' in requestOf(ipInfo, { ip: dots }), dots);
  // Numbers and booleans as the query string writes them; anything else as JSON, for the route to refuse by name.
  const ping = byName.get('ping') as McpTool;
  assert.deepEqual(requestOf(ping, { host: 'example.com', count: 3, family: { x: 1 } }), {
    url: '/api/v1/ping?host=example.com&count=3&family=%7B%22x%22%3A1%7D',
  });
  // An argument no schema names goes on to the route, which refuses it naming the ones it takes.
  assert.deepEqual(requestOf(ping, { host: 'example.com', colour: 'red' }), {
    url: '/api/v1/ping?host=example.com&colour=red',
  });
});

test('a stream tool has no api_key argument, and one given is refused rather than read as a key', async () => {
  const ping = (await tools()).get('ping') as McpTool;
  assert.equal('api_key' in ping.inputSchema.properties, false);
  const refused = requestOf(ping, { host: 'example.com', api_key: 'nk_x' });
  assert.ok('refused' in refused && /Authorization header/.test(refused.refused));
});

test('bodies: a list body is the argument items, an object body its properties', async () => {
  const byName = await tools();
  const batch = byName.get('ip_batch') as McpTool;
  assert.deepEqual(batch.inputSchema.required, ['items']);
  assert.deepEqual(requestOf(batch, { items: ['8.8.8.8', 'AS15169'], fields: 'ip' }), {
    url: '/api/v1/batch?fields=ip',
    body: ['8.8.8.8', 'AS15169'],
  });
  const measure = byName.get('measure') as McpTool;
  assert.deepEqual(requestOf(measure, { type: 'ping', target: 'example.com', limit: 2 }), {
    url: '/api/v1/measurements',
    body: { type: 'ping', target: 'example.com', limit: 2 },
  });
});

test('a summary that throws leaves the answer intact: a line saying so, then the JSON', async (t) => {
  const app = await buildTestApp();
  t.after(() => app.close());
  await app.ready();
  const myIp = deriveTools(app.routeCatalogue.routes).find((tool) => tool.name === 'my_ip') as McpTool;
  const broken: McpTool = {
    ...myIp,
    summary: () => {
      throw new Error('unexpected shape');
    },
  };
  const result = await callTool(
    app,
    broken,
    {},
    {
      clientIp: '8.8.8.8',
      authorization: undefined,
      requestId: 'summary-test',
      signal: new AbortController().signal,
      uncounted: () => ({}),
    },
  );
  assert.equal(result.isError, undefined);
  assert.match(result.content[0]?.text ?? '', /no summary: unexpected shape/);
  assert.equal((result.structuredContent as { ip?: string }).ip, '8.8.8.8');
  assert.deepEqual(JSON.parse(result.content[1]?.text ?? ''), result.structuredContent);
});
