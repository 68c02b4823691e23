// The MCP tool list stays equal to the routes (issue 34): every /api/v1 route but the account API
// says which tool it is or why it is none, the tools an agent lists over the SDK client are exactly
// those declared, and each tool's input is its route's own parameters. The check is run on the
// real app, then on a catalogue with a route added or taken away, to show it fails when it should.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { CataloguedRoute } from '../../src/http/route-catalogue.ts';
import { buildTestApp } from '../support/app.ts';
import { connect, listening } from './mcp-client.ts';

interface ListedTool {
  readonly name: string;
  readonly inputSchema: { properties?: Record<string, object>; required?: string[] };
}

const isAccountApi = (url: string) => url === '/api/v1/account' || url.startsWith('/api/v1/account/');
const json = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value ?? {}));

/** What a route takes, as the route's own schemas say it: path, query and body properties (a list body is `items`). */
function routeInput(route: CataloguedRoute) {
  const schema = json(route.schema);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of ['params', 'querystring', 'body'] as const) {
    const object = schema[part] as { type?: string; properties?: object; required?: string[] } | undefined;
    if (object === undefined) continue;
    if (object.type === 'array') {
      properties.items = object;
      required.push('items');
      continue;
    }
    Object.assign(properties, object.properties);
    required.push(...(object.required ?? []));
  }
  // A stream route's ?api_key= is for EventSource; an MCP client sends its key as a header.
  if (route.config?.stream) delete properties.api_key;
  return { properties, required: required.filter((name) => name in properties).sort() };
}

/** Every way the tools and the routes disagree, in words (none: they agree). */
function catalogueProblems(routes: readonly CataloguedRoute[], listed: readonly ListedTool[]): string[] {
  const problems: string[] = [];
  const declared = new Map<string, CataloguedRoute>();
  for (const route of routes) {
    if (!route.url.startsWith('/api/v1/') || isAccountApi(route.url)) continue;
    if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
    const tool = route.config?.agentTool;
    const where = `${route.method} ${route.url}`;
    if (tool === undefined) problems.push(`${where} declares no agentTool`);
    else if ('none' in tool) {
      if (typeof tool.none !== 'string' || tool.none.trim() === '')
        problems.push(`${where} is no tool without a reason`);
    } else declared.set(tool.name, route);
  }
  const names = new Set(listed.map((tool) => tool.name));
  for (const name of declared.keys()) if (!names.has(name)) problems.push(`${name} is declared but not listed`);
  for (const tool of listed) {
    const route = declared.get(tool.name);
    if (route === undefined) {
      problems.push(`${tool.name} is listed but no route declares it`);
      continue;
    }
    const expected = routeInput(route);
    try {
      assert.deepEqual(json(tool.inputSchema.properties), json(expected.properties));
    } catch {
      problems.push(`${tool.name}: its input properties are not ${route.method} ${route.url}'s parameters`);
    }
    const required = [...(tool.inputSchema.required ?? [])].sort();
    if (JSON.stringify(required) !== JSON.stringify(expected.required)) {
      problems.push(`${tool.name}: requires ${required} where the route requires ${expected.required}`);
    }
  }
  return problems;
}

describe('the MCP tools are the routes', () => {
  let app: FastifyInstance;
  let listed: ListedTool[];

  before(async () => {
    app = await buildTestApp();
    const { client } = await connect(await listening(app));
    listed = (await client.listTools()).tools;
    await client.close();
  });
  after(() => app?.close());

  it('every /api/v1 route is a tool or says why not; the listed tools are the declared ones, with their routes’ input', () => {
    assert.deepEqual(catalogueProblems(app.routeCatalogue.routes, listed), []);
    // The check looked at something: the tools the issue names, and the routes that say why they are none.
    assert.ok(listed.length >= 19, `only ${listed.length} tools listed`);
    for (const name of ['ping', 'traceroute', 'mtr', 'measure', 'ip_batch', 'whois', 'tls_check', 'dns_lookup']) {
      assert.ok(
        listed.some((tool) => tool.name === name),
        name,
      );
    }
    const reasons = app.routeCatalogue.routes.filter((route) => {
      const tool = route.config?.agentTool;
      return tool !== undefined && 'none' in tool;
    });
    assert.ok(reasons.some((route) => route.url === '/api/v1/measurements/:id'));
  });

  it('a route added without agentTool, or with an empty reason, fails the check', async () => {
    const other = await buildTestApp();
    other.get('/api/v1/undeclared', async () => ({}));
    other.get('/api/v1/unexplained', { config: { agentTool: { none: ' ' } } }, async () => ({}));
    await other.ready();
    try {
      assert.deepEqual(catalogueProblems(other.routeCatalogue.routes, listed), [
        'GET /api/v1/undeclared declares no agentTool',
        'GET /api/v1/unexplained is no tool without a reason',
      ]);
    } finally {
      await other.close();
    }
  });

  it('a listed tool whose route is gone, or a declared one not listed, fails the check', () => {
    const withoutWhois = app.routeCatalogue.routes.filter((route) => route.url !== '/api/v1/whois');
    assert.deepEqual(catalogueProblems(withoutWhois, listed), ['whois is listed but no route declares it']);
    const unlisted = listed.filter((tool) => tool.name !== 'whois');
    assert.deepEqual(catalogueProblems(app.routeCatalogue.routes, unlisted), ['whois is declared but not listed']);
  });

  it('a tool whose input differs from its route’s parameters fails the check', () => {
    const altered = listed.map((tool) => {
      if (tool.name === 'ping') {
        const { count: _count, ...properties } = tool.inputSchema.properties ?? {};
        return { ...tool, inputSchema: { ...tool.inputSchema, properties } };
      }
      if (tool.name === 'ip_batch') return { ...tool, inputSchema: { ...tool.inputSchema, required: [] } };
      return tool;
    });
    assert.deepEqual(catalogueProblems(app.routeCatalogue.routes, altered), [
      'ip_batch: requires  where the route requires items',
      "ping: its input properties are not GET /api/v1/ping's parameters",
    ]);
  });
});
