// The MCP server as an agent sees it (issue 34): the SDK's own Client over Streamable HTTP against
// the real app on loopback. Every tool is called against local fakes (test/web/tool-fakes.ts: DNS,
// WHOIS, TLS, HTTP servers and a scripted spawner) and its structured result compared with the
// route's own JSON fetched over HTTP with the same parameters; then the protocol around the tools,
// and the HTTP rules (limits, keys, target policy) as they hold for tool calls.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { rpkiOnlyPlan, updatePlanFromConfig } from '../../src/ipinfo/updater/update-plan.ts';
import { startFakeRegistries } from '../abuse/fake-registries.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { countingListener } from '../support/counting-listener.ts';
import { startLiveDataApp } from '../support/live-data-app.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';
import { VRPS } from '../support/rpki-site.ts';
import { openStream } from '../support/sse-client.ts';
import { startToolFakes } from '../web/tool-fakes.ts';
import { connect, listening } from './mcp-client.ts';

type Json = Record<string, unknown>;

/** Fields two calls of the same thing legitimately answer differently: a cache hit, clocks, timings, a new id. */
const VOLATILE = new Set(['cached', 'queried_at', 'timings', 'date', 'time_ms', 'id', 'created_at']);

/** The value with its volatile fields left out, at any depth. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => !VOLATILE.has(name))
      .map(([name, field]) => [name, comparable(field)]),
  );
}

/** How the route answers over HTTP: a JSON body, a stream (its `done` fields and every event), or a measurement followed to its end. */
type Http = { get: string } | { post: string; body: unknown } | { stream: string } | { measure: unknown };

interface ToolCase {
  readonly tool: string;
  readonly args: Json;
  readonly http: Http;
  /** The summary (the first text) names it. */
  readonly fact: RegExp;
}

async function routeAnswer(base: string, http: Http): Promise<unknown> {
  if ('get' in http) return (await fetch(`${base}${http.get}`)).json();
  if ('post' in http) {
    const response = await fetch(`${base}${http.post}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(http.body),
    });
    return response.json();
  }
  if ('stream' in http) {
    const events = (await (await openStream(`${base}${http.stream}`)).done).map((received) => received.event);
    const { type, ...done } = events.at(-1) as Json;
    assert.equal(type, 'done');
    return { ...done, events };
  }
  const started = (await routeAnswer(base, { post: '/api/v1/measurements', body: http.measure })) as { id: string };
  // The events stream ends with the measurement.
  await (await fetch(`${base}/api/v1/measurements/${started.id}/events`)).text();
  return routeAnswer(base, { get: `/api/v1/measurements/${started.id}` });
}

/** A tool call's result: no error, the summary naming the fact, then the JSON, which is the route's answer. */
async function callAndCompare(client: Client, base: string, call: ToolCase): Promise<void> {
  const result = await client.callTool({ name: call.tool, arguments: call.args });
  const content = result.content as { type: string; text: string }[];
  assert.equal(result.isError, undefined, `${call.tool}: ${content[0]?.text}`);
  assert.equal(content.length, 2);
  assert.match(content[0]?.text ?? '', call.fact);
  const structured = result.structuredContent as Json;
  assert.deepEqual(JSON.parse(content[1]?.text ?? ''), structured, 'the second text is the JSON');
  const expected = await routeAnswer(base, call.http);
  assert.deepEqual(comparable(structured), comparable(expected), call.tool);
}

describe('every tool through the SDK client, as its route answers', { timeout: 120_000 }, () => {
  let fakes: Awaited<ReturnType<typeof startToolFakes>>;
  let app: FastifyInstance;
  let base: string;
  let client: Client;
  let listener: Awaited<ReturnType<typeof countingListener>>;
  const called = new Set<string>();

  before(async () => {
    fakes = await startToolFakes();
    listener = await countingListener('127.0.0.1');
    app = await buildTestApp({ ...fakes.env, RATE_LIMITS: 'public=100000/1000000' }, fakes.deps);
    base = await listening(app);
    ({ client } = await connect(base));
  });
  after(async () => {
    await client?.close();
    await app?.close();
    listener?.server.close();
    await fakes?.close();
  });

  const cases = (): ToolCase[] => [
    { tool: 'my_ip', args: {}, http: { get: '/api/v1/json' }, fact: /^127\.0\.0\.1 · Loopback/ },
    { tool: 'ip_info', args: { ip: '8.8.8.8' }, http: { get: '/api/v1/json/8.8.8.8' }, fact: /AS15169 Google LLC/ },
    // Regression: the summary read the security flags a `fields` filter had left out (an internal error).
    {
      tool: 'ip_info',
      args: { ip: '8.8.8.8', fields: 'ip,location' },
      http: { get: '/api/v1/json/8.8.8.8?fields=ip,location' },
      fact: /^8\.8\.8\.8/,
    },
    { tool: 'asn_info', args: { asn: 'AS15169' }, http: { get: '/api/v1/asn/AS15169' }, fact: /AS15169 Google LLC/ },
    {
      tool: 'ip_batch',
      args: { items: ['8.8.8.8', 'AS15169', '192.0.2.1'], fields: 'ip,asn,special' },
      http: { post: '/api/v1/batch?fields=ip,asn,special', body: ['8.8.8.8', 'AS15169', '192.0.2.1'] },
      fact: /^3 items/,
    },
    {
      tool: 'dns_lookup',
      args: { host: 'www.example.test', record_type: 'A' },
      http: { get: '/api/v1/dns?host=www.example.test&record_type=A' },
      fact: /192\.0\.2\.10 .*192\.0\.2\.11/,
    },
    {
      tool: 'dns_json',
      args: { name: 'example.test', type: 'MX' },
      http: { get: '/api/v1/dns-json?name=example.test&type=MX' },
      fact: /10 mx\.example\.test/,
    },
    {
      tool: 'blacklist_check',
      args: { ip: '127.0.0.2' },
      http: { get: '/api/v1/blacklist?ip=127.0.0.2' },
      fact: /listed on 1 of 3 lists \(Listed\)/,
    },
    {
      tool: 'mail_check',
      args: { domain: 'good.mail.test', dkim_selector: 's1' },
      http: { get: '/api/v1/mail?domain=good.mail.test&dkim_selector=s1' },
      fact: /DMARC p=reject/,
    },
    {
      tool: 'whois',
      args: { target: 'example.test' },
      http: { get: '/api/v1/whois?target=example.test' },
      fact: /registrar Example Registrar, Inc\./,
    },
    {
      tool: 'tls_check',
      args: { host: 'valid.tls.test' },
      http: { get: '/api/v1/ssl?host=valid.tls.test' },
      fact: /: valid, TLSv1\.3, issuer/,
    },
    {
      tool: 'http_check',
      args: { url: `http://valid.tls.test:${fakes.webPort}/old` },
      http: { get: `/api/v1/http?url=${encodeURIComponent(`http://valid.tls.test:${fakes.webPort}/old`)}` },
      fact: /: 200 over HTTP\/2 .* after 1 redirect/,
    },
    {
      tool: 'port_check',
      args: { n: listener.port },
      http: { get: `/api/v1/port/${listener.port}` },
      fact: new RegExp(`^127\\.0\\.0\\.1:${listener.port} reachable`),
    },
    { tool: 'list_nodes', args: {}, http: { get: '/api/v1/nodes' }, fact: /^1 node/ },
    {
      tool: 'ping',
      args: { host: '127.0.0.1', count: 4 },
      http: { stream: '/api/v1/ping?host=127.0.0.1&count=4' },
      fact: /^127\.0\.0\.1: 3\/4 replies, 25% loss/,
    },
    {
      tool: 'traceroute',
      args: { host: '127.0.0.1' },
      http: { stream: '/api/v1/traceroute?host=127.0.0.1' },
      fact: /reached in 4 hops \(1 silent\)/,
    },
    {
      tool: 'mtr',
      args: { host: '203.0.113.2', count: 3 },
      http: { stream: '/api/v1/mtr?host=203.0.113.2&count=3' },
      fact: /worst loss 100% at hop 2/,
    },
    {
      tool: 'measure',
      args: { type: 'dns', target: 'example.test', options: { record_type: 'A' } },
      http: { measure: { type: 'dns', target: 'example.test', options: { record_type: 'A' } } },
      fact: /^dns example\.test from 1 node: 1 finished/,
    },
  ];

  it('each tool’s result is its route’s JSON, the summary first', async () => {
    for (const call of cases()) {
      await callAndCompare(client, base, call);
      called.add(call.tool);
    }
    assert.ok(listener.connects() >= 2, 'port_check reached the listener, twice');
  });

  it('rpki_validate against an installed VRP set; abuse_contact against RDAP registry fakes', async () => {
    const registries = await startFakeRegistries();
    const feed = await startLocalHttpServer();
    feed.set('/vrps.json', { body: VRPS });
    const dataDir = `.tmp/mcp-data-${process.pid}`;
    const env = {
      ...registries.env,
      DATA_DIR: dataDir,
      HOSTNAME_TIMEOUT_MS: '0',
      DATA_REFRESH_HOURS: '0',
      RPKI_REFRESH_MINUTES: '0',
      FEED_RPKI_URL: `${feed.origin}/vrps.json`,
    };
    const live = await startLiveDataApp(env, registries.deps);
    const { client: other } = await connect(live.base);
    try {
      await runDataUpdate(rpkiOnlyPlan(updatePlanFromConfig(loadConfig(env))));
      for (let i = 0; i < 250 && live.store.current?.rpki === undefined; i++) await sleep(20);
      await callAndCompare(other, live.base, {
        tool: 'rpki_validate',
        args: { prefix: '1.1.1.0/24', asn: 'AS13335' },
        http: { get: '/api/v1/rpki?prefix=1.1.1.0/24&asn=AS13335' },
        fact: /^1\.1\.1\.0\/24 from AS13335: valid/,
      });
      called.add('rpki_validate');
      await callAndCompare(other, live.base, {
        tool: 'abuse_contact',
        args: { ip: '193.0.6.139' },
        http: { get: '/api/v1/abuse?ip=193.0.6.139' },
        fact: /report abuse to abuse@ripe\.net \(RIPE NCC Operations, RIPE NCC\)/,
      });
      called.add('abuse_contact');
    } finally {
      await other.close();
      await live.app.close();
      await feed.close();
      await registries.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('that was every tool the server lists', async () => {
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual([...called].sort(), listed);
  });
});

describe('the protocol around the tools', { timeout: 60_000 }, () => {
  let fakes: Awaited<ReturnType<typeof startToolFakes>>;
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    fakes = await startToolFakes();
    app = await buildTestApp({ ...fakes.env, RATE_LIMITS: 'public=100000/1000000' }, fakes.deps);
    base = await listening(app);
  });
  after(async () => {
    await app?.close();
    await fakes?.close();
  });

  it('initialize names a session; tools/list answers; GET and DELETE /mcp are 405; a browser may POST', async () => {
    const { client, transport } = await connect(base);
    assert.match(transport.sessionId ?? '', /^[0-9a-f]{32}$/);
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'ping'));
    assert.equal(client.getServerVersion()?.name, 'netinfo');
    await client.close();
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${base}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'POST');
    }
    const preflight = await fetch(`${base}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Mcp-Session-Id, Mcp-Protocol-Version, Authorization, Content-Type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    for (const header of ['mcp-session-id', 'mcp-protocol-version', 'authorization', 'content-type']) {
      assert.ok(allowed.includes(header), `${header} in ${allowed}`);
    }
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  });

  it('ping reports each event as progress, in order, and answers them all as its events', async () => {
    const { client } = await connect(base);
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'ping', arguments: { host: '127.0.0.1', count: 4 } }, undefined, {
      onprogress: (notification) => progress.push(notification),
    });
    await client.close();
    const events = (result.structuredContent as { events: Json[] }).events;
    assert.deepEqual(
      events.map((event) => event.type),
      ['start', 'reply', 'reply', 'timeout', 'reply', 'done'],
    );
    assert.deepEqual(
      progress.map((notification) => notification.progress),
      events.map((_, index) => index + 1),
    );
    progress.forEach((notification, index) => {
      const event = events[index] as Json;
      assert.ok(notification.message?.startsWith(`${event.type}`), `${notification.message} names ${event.type}`);
      if (event.type === 'reply') assert.match(notification.message ?? '', new RegExp(`seq=${event.seq}\\b`));
    });
  });

  it('resources/list names netinfo://openapi, and reading it is GET /api/v1/openapi.json', async () => {
    const { client } = await connect(base);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((resource) => [resource.uri, resource.mimeType]),
      [['netinfo://openapi', 'application/json']],
    );
    const read = await client.readResource({ uri: 'netinfo://openapi' });
    await client.close();
    const served = await (await fetch(`${base}/api/v1/openapi.json`)).text();
    assert.equal((read.contents[0] as { text: string }).text, served);
    assert.equal(JSON.parse(served).openapi.startsWith('3.1'), true);
  });

  it('an unknown tool is a protocol error, not a crash: the server answers on', async () => {
    const { client } = await connect(base);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.match(error.message, /Unknown tool: no_such_tool/);
      return true;
    });
    const after = await client.callTool({ name: 'my_ip', arguments: {} });
    assert.equal(after.isError, undefined);
    await client.close();
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  });
});

describe('the HTTP rules hold for tool calls', { timeout: 60_000 }, () => {
  it('429 as a tool error: protocol messages count nothing, the N+1th call says when the limit resets', async () => {
    const app = await buildTestApp({ RATE_LIMITS: 'public=3/100' });
    const base = await listening(app);
    try {
      const { client } = await connect(base);
      await client.listTools();
      await client.readResource({ uri: 'netinfo://openapi' });
      await client.listTools();
      for (let call = 1; call <= 3; call++) {
        const result = await client.callTool({ name: 'ip_info', arguments: { ip: '8.8.8.8' } });
        assert.equal(result.isError, undefined, `call ${call} of 3`);
      }
      const refused = await client.callTool({ name: 'ip_info', arguments: { ip: '8.8.8.8' } });
      await client.close();
      assert.equal(refused.isError, true);
      const text = (refused.content as { text: string }[])[0]?.text ?? '';
      assert.match(text, /^429: .*resets/);
      const structured = refused.structuredContent as Json;
      assert.equal(structured.status, 429);
      assert.equal(structured.limit, 3);
      assert.equal(typeof structured.reset, 'number');
      // The same refusal as the route's own, field for field.
      const http = await fetch(`${base}/api/v1/json/8.8.8.8`);
      assert.equal(http.status, 429);
      const { status: _status, ...fields } = structured;
      assert.deepEqual(fields, await http.json());
    } finally {
      await app.close();
    }
  });

  it('an API key puts tool calls on its account’s tier; an invalid key cannot connect', async () => {
    const accounts = await buildAccountsApp({ RATE_LIMITS: 'public=2/100,free=1000/10000' });
    try {
      const owner = sessionClient(accounts.app);
      await owner.signup('agent@example.com', PASSWORD);
      const { key } = (await owner.createKey('agent')).json();
      const base = await listening(accounts.app);
      const { client } = await connect(base, { authorization: `Bearer ${key}` });
      for (let call = 1; call <= 3; call++) {
        const result = await client.callTool({ name: 'my_ip', arguments: {} });
        assert.equal(result.isError, undefined, `call ${call}: over the public limit of 2, within the key's`);
      }
      await client.close();
      const keyed = await fetch(`${base}/api/v1/json`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(keyed.headers.get('x-ratelimit-limit'), '1000');
      assert.equal(keyed.headers.get('x-ratelimit-remaining'), '996', 'the three tool calls and this one');
      // The client's address was not charged: both its public requests are still there.
      const publicly = await fetch(`${base}/api/v1/json`);
      assert.equal(publicly.status, 200);
      assert.equal(publicly.headers.get('x-ratelimit-remaining'), '1');
      // With a public request left (a refused key falls back to the public limit, and a spent one answers 429).
      await assert.rejects(connect(base, { authorization: 'Bearer nk_not_a_key' }), (error: { code?: number }) => {
        assert.equal(error.code, 401);
        return true;
      });
    } finally {
      await accounts.close();
    }
  });

  it('the default target policy refuses private targets as tool errors; nothing reaches them', async () => {
    const fakes = await startToolFakes();
    const { ALLOW_PRIVATE_TARGETS: _open, ...env } = fakes.env;
    const app = await buildTestApp({ ...env, RATE_LIMITS: 'public=100000/1000000' }, fakes.deps);
    const target = await countingListener('127.0.0.2');
    try {
      const { client } = await connect(await listening(app));
      const calls = [
        { name: 'http_check', arguments: { url: `http://127.0.0.2:${target.port}/` } },
        { name: 'tls_check', arguments: { host: '127.0.0.2', port: target.port } },
        { name: 'ping', arguments: { host: '127.0.0.2' } },
      ];
      for (const call of calls) {
        const result = await client.callTool(call);
        assert.equal(result.isError, true, call.name);
        assert.equal((result.structuredContent as Json).status, 400, call.name);
        assert.match(
          (result.content as { text: string }[])[0]?.text ?? '',
          /^400: .*does not connect to private, loopback/,
          call.name,
        );
      }
      await client.close();
      assert.equal(target.connects(), 0);
      assert.equal(fakes.spawned.length, 0, 'no ping started');
    } finally {
      target.server.close();
      await app.close();
      await fakes.close();
    }
  });
});
