// docs/mcp.md is what an operator and an agent's user read: its tool table must be the tools the
// app derives (a tool added without docs fails), its snippets must parse and point at /mcp, and
// the TypeScript one must work as written.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { deriveTools } from '../../src/mcp/tools.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGE = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
const ENDPOINT = 'https://netinfo.example.com/mcp';

const blocks = (language: string) =>
  [...PAGE.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(([, body = '']) => body);
const asPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

async function catalogue() {
  const app = await buildTestApp();
  await app.ready();
  await app.close();
  return app.routeCatalogue.routes;
}

test('the tool table is the tools the app derives, each with the request it stands for', async () => {
  const table = PAGE.slice(PAGE.indexOf('<!-- tool-table:start'), PAGE.indexOf('<!-- tool-table:end'));
  const documented = [...table.matchAll(/^\| `(\w+)` \| `(GET|POST) ([^`]+)`/gm)].map(
    ([, name, method, url]) => `${name} ${method} ${url}`,
  );
  const derived = deriveTools(await catalogue()).map((tool) => `${tool.name} ${tool.method} ${asPath(tool.url)}`);
  assert.deepEqual(documented, derived);
});

test('every route that is not a tool is named where the page says why', async () => {
  const section = PAGE.slice(PAGE.indexOf('### Not tools'), PAGE.indexOf('## Limits and keys'));
  const named = [...section.matchAll(/`(?:GET |POST )?(\/api\/v1\/[^`]*)`/g)].map(([, url = '']) => url);
  const unnamed = (await catalogue())
    .filter((route) => route.method !== 'HEAD' && route.config?.agentTool && 'none' in route.config.agentTool)
    .map((route) => asPath(route.url))
    .filter((url) => !named.some((name) => url === name || url.startsWith(`${name}/`)));
  assert.deepEqual(unnamed, []);
});

test('every JSON snippet parses and points at /mcp; so do the commands', () => {
  const json = blocks('json');
  assert.ok(json.length >= 5, 'the client configurations');
  for (const body of json) {
    const config = JSON.parse(body) as { mcpServers?: object; servers?: object };
    const servers = Object.values(config.mcpServers ?? config.servers ?? {});
    assert.equal(servers.length, 1, body);
    assert.ok(JSON.stringify(servers[0]).includes(`"${ENDPOINT}"`), body);
  }
  for (const body of [...blocks('sh'), ...blocks('ts')]) assert.ok(body.includes(ENDPOINT), body);
});

test('the TypeScript snippet connects with a key and calls a tool, as written', async () => {
  const [snippet] = blocks('ts');
  assert.ok(snippet);
  const accounts = await buildAccountsApp();
  const file = path.join(ROOT, `.tmp/mcp-snippet-${process.pid}.ts`);
  const printed: unknown[] = [];
  const log = console.log;
  try {
    await accounts.app.listen({ port: 0, host: '127.0.0.1' });
    const browser = sessionClient(accounts.app);
    await browser.signup('agent@example.com', PASSWORD);
    const { key } = (await browser.createKey('agent')).json();
    const { port } = accounts.app.server.address() as { port: number };
    // Only the address and the key change; example.com resolves through DNS_SERVERS=127.0.0.1:9 and fails here.
    writeFileSync(file, snippet.replace(ENDPOINT, `http://127.0.0.1:${port}/mcp`).replace('nk_...', key));
    console.log = (...values: unknown[]) => printed.push(...values);
    await import(file);
  } finally {
    console.log = log;
    rmSync(file, { force: true });
    await accounts.close();
  }
  const result = printed.at(-1) as { status?: number; error?: string };
  assert.equal(result.status, 502, JSON.stringify(result));
  assert.match(String(result.error), /could not resolve example\.com/);
});
