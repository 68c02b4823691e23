import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { findCommand } from '../../scripts/system-packages.ts';
import { loadConfig } from '../../src/config.ts';
import { formatServer } from '../../src/dns/servers.ts';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { buildTestApp } from '../support/app.ts';
import { startFakeDnsServer } from '../support/fake-dns-server.ts';
import { createFakeSpawner, ONE_PING_REPLY } from '../support/fake-spawner.ts';
import { freePort } from '../support/free-port.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../support/redis-server.ts';
import { startServiceProcess } from '../support/service-process.ts';

const PROMTOOL = findCommand('promtool');
const promtoolSkipReason = PROMTOOL
  ? false
  : 'promtool not found (apt-get install prometheus): the promtool check of /metrics is skipped';
if (promtoolSkipReason) console.log(`# ${promtoolSkipReason}`);

/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(port: number, path = '/metrics'): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
}

describe('metrics', () => {
  test('METRICS_PORT defaults to 9464 on 127.0.0.1; 0 is accepted (off)', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.metricsPort, 9464);
    assert.equal(defaults.metricsHost, '127.0.0.1');
    assert.equal(loadConfig({ METRICS_PORT: '0' }).metricsPort, 0);
    assert.throws(() => loadConfig({ METRICS_PORT: '70000' }), /METRICS_PORT/);
    assert.throws(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' }), /METRICS_PORT: must differ from PORT/);
    assert.equal(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metricsPort, 0);
  });

  test('a scrape after known traffic shows exact counts: routes, a 429, an upstream timeout', async (t) => {
    // A DNS server that never answers: every query to it times out.
    const silent = await startFakeDnsServer(() => 'drop');
    t.after(() => silent.close());
    const metricsPort = await freePort();
    const app = await buildTestApp({
      METRICS_PORT: String(metricsPort),
      DNS_SERVERS: formatServer(silent.server),
      DNS_TIMEOUT_MS: '100',
      RATE_LIMITS: 'public=4/100',
    });
    t.after(() => app.close());
    await app.ready();

    const dns = await app.inject('/api/v1/dns?host=example.com&record_type=A');
    assert.equal(dns.statusCode, 502);
    for (let index = 0; index < 2; index++) assert.equal((await app.inject('/api/v1/ipv6')).statusCode, 200);
    assert.equal((await app.inject('/api/v1/no-such-thing')).statusCode, 404);
    assert.equal((await app.inject('/api/v1/ipv6')).statusCode, 429);

    const { status, text } = await scrape(metricsPort);
    assert.equal(status, 200);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/dns",method="GET",status="502"}'), 1);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/ipv6",method="GET",status="200"}'), 2);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/ipv6",method="GET",status="429"}'), 1);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="unmatched",method="GET",status="404"}'), 1);
    assert.equal(sample(text, 'netinfo_http_request_duration_seconds_count{route="/api/v1/ipv6"}'), 3);
    assert.equal(sample(text, 'netinfo_rate_limited_total{tier="public"}'), 1);
    // One server, tried twice (the resolver's default), each try a 100 ms timeout.
    assert.equal(sample(text, 'netinfo_upstream_requests_total{upstream="dns",outcome="timeout"}'), 2);
    assert.equal(sample(text, 'netinfo_upstream_duration_seconds_count{upstream="dns"}'), 2);
    assert.equal(sample(text, 'netinfo_cache_requests_total{cache="dns",result="miss"}'), 1);
    assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'default metrics');
    assert.ok(sample(text, 'netinfo_redis_fallback_active') === 0);

    // The scrape itself is never counted, and other paths of the listener are 404.
    assert.equal((await scrape(metricsPort, '/')).status, 404);
    const again = await scrape(metricsPort);
    assert.equal(again.text.match(/^netinfo_http_requests_total\{/gm)?.length, 4);
    assert.doesNotMatch(again.text, /route="\/metrics"/);
  });

  // Issue 28: `promtool check metrics` refused three of prom-client's default gauges for their
  // counter-like `_total` suffix (nodejs_active_handles_total, _requests_total, _resources_total).
  test('issue 34: MCP tool calls are counted by tool and outcome, and each as its route request; protocol messages as /mcp only', async (t) => {
    const metricsPort = await freePort();
    const app = await buildTestApp({ METRICS_PORT: String(metricsPort) });
    t.after(() => app.close());
    await app.ready();
    const rpc = async (method: string, params: object = {}) => {
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        payload: { jsonrpc: '2.0', id: 1, method, params },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { result: { isError?: boolean } };
    };
    await rpc('tools/list');
    assert.equal(
      (await rpc('tools/call', { name: 'ip_info', arguments: { ip: '8.8.8.8' } })).result.isError,
      undefined,
    );
    assert.equal((await rpc('tools/call', { name: 'ip_info', arguments: { ip: 'nope' } })).result.isError, true);

    const { text } = await scrape(metricsPort);
    assert.equal(sample(text, 'netinfo_mcp_tool_calls_total{tool="ip_info",outcome="ok"}'), 1);
    assert.equal(sample(text, 'netinfo_mcp_tool_calls_total{tool="ip_info",outcome="error"}'), 1);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/json/:ip",method="GET",status="200"}'), 1);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/json/:ip",method="GET",status="400"}'), 1);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/mcp",method="POST",status="200"}'), 3);
  });

  async function scrapeOfFreshApp(t: { after: (fn: () => unknown) => void }): Promise<string> {
    const metricsPort = await freePort();
    const app = await buildTestApp({ METRICS_PORT: String(metricsPort) });
    t.after(() => app.close());
    await app.ready();
    assert.equal((await app.inject('/api/v1/ipv6')).statusCode, 200);
    return (await scrape(metricsPort)).text;
  }

  test('issue 28: a counter ends in _total and nothing else does', async (t) => {
    const types = [...(await scrapeOfFreshApp(t)).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({
      name: name as string,
      type: type as string,
    }));
    assert.ok(types.length > 20, `${types.length} families`);
    const misnamed = types.filter(({ name, type }) => name.endsWith('_total') !== (type === 'counter'));
    assert.deepEqual(misnamed, []);
    assert.ok(
      types.some(({ name }) => name === 'nodejs_active_handles'),
      'the per-type family stays',
    );
  });

  test('issue 28: promtool check metrics accepts the scrape', { skip: promtoolSkipReason }, async (t) => {
    const text = await scrapeOfFreshApp(t);
    const checked = spawnSync(PROMTOOL as string, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  });

  test('label values stay bounded under a flood of 200 random paths (route="unmatched")', async (t) => {
    const metricsPort = await freePort();
    const app = await buildTestApp({ METRICS_PORT: String(metricsPort), RATE_LIMITS: 'public=100000/100000' });
    t.after(() => app.close());
    await app.ready();
    const routes = (text: string) => new Set([...text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    const before = routes((await scrape(metricsPort)).text);
    for (let index = 0; index < 200; index++) {
      await app.inject(`/${Math.random().toString(36).slice(2)}/${index}`);
    }
    const { text } = await scrape(metricsPort);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="unmatched",method="GET",status="404"}'), 200);
    assert.equal(text.match(/^netinfo_http_requests_total\{/gm)?.length, 1);
    // The route patterns registered at startup, and "unmatched": no path of the flood.
    assert.deepEqual(routes(text), before);
    assert.ok(before.has('unmatched') && before.has('/api/v1/json/:ip'));
    assert.ok([...before].every((route) => route === 'unmatched' || route?.startsWith('/')));
  });

  test('METRICS_PORT=0: the process listens on the public port only', async (t) => {
    const listeningSockets = (pid: number) => listeningSocketCount(pid);
    const off = await startServiceProcess({ METRICS_PORT: '0' });
    t.after(() => off.stop());
    assert.equal(await listeningSockets(off.child.pid as number), 1);
    const metricsPort = await freePort();
    const on = await startServiceProcess({ METRICS_PORT: String(metricsPort) });
    t.after(() => on.stop());
    assert.equal(await listeningSockets(on.child.pid as number), 2);
    assert.equal((await scrape(metricsPort)).status, 200);
  });

  test('a METRICS_PORT that is taken stops the start, naming METRICS_PORT', async (t) => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    t.after(() => taken.close());
    const port = (taken.address() as { port: number }).port;
    await assert.rejects(startServiceProcess({ METRICS_PORT: String(port) }), (error: Error) => {
      assert.match(error.message, /exited with 1/);
      assert.match(error.message, new RegExp(`METRICS_PORT: 127\\.0\\.0\\.1:${port} is already in use`));
      return true;
    });
  });

  test('streams: active while running, then counted by how they ended', async (t) => {
    let spawned = 0;
    // The first ping replies and exits; the second fails (exit 2, no output).
    const fake = createFakeSpawner((child) => {
      spawned++;
      if (spawned === 1) {
        child.stdout(ONE_PING_REPLY);
        child.exit(0);
      } else child.exit(2);
    });
    const metricsPort = await freePort();
    const app = await buildTestApp(
      { METRICS_PORT: String(metricsPort), ALLOW_PRIVATE_TARGETS: 'true' },
      { spawner: fake.spawner },
    );
    t.after(() => app.close());
    for (let index = 0; index < 2; index++) {
      assert.equal((await app.inject('/api/v1/ping?host=127.0.0.1&count=1')).statusCode, 200);
    }
    // Refused before the stream starts: answered (and counted) like any JSON error, once.
    assert.equal((await app.inject('/api/v1/ping?host=-x')).statusCode, 400);
    const { text } = await scrape(metricsPort);
    // A stream takes the response over: it is counted when it ends, once.
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/ping",method="GET",status="200"}'), 2);
    assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/ping",method="GET",status="400"}'), 1);
    assert.equal(sample(text, 'netinfo_http_request_duration_seconds_count{route="/api/v1/ping"}'), 3);
    assert.equal(sample(text, 'netinfo_streams_total{tool="ping",end="done"}'), 1);
    assert.equal(sample(text, 'netinfo_streams_total{tool="ping",end="error"}'), 1);
    assert.equal(sample(text, 'netinfo_streams_active{tool="ping"}'), 0);

    // A TCP ping runs no tool: its streams are tool="tcp_ping".
    const listener = createServer((socket) => socket.destroy());
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    t.after(() => listener.close());
    const port = (listener.address() as { port: number }).port;
    const tcp = await app.inject(`/api/v1/ping?host=127.0.0.1&count=1&protocol=tcp&port=${port}`);
    assert.equal(tcp.statusCode, 200);
    assert.match(tcp.body, /"type":"done"/);
    const after = (await scrape(metricsPort)).text;
    assert.equal(sample(after, 'netinfo_streams_total{tool="tcp_ping",end="done"}'), 1);
    assert.equal(sample(after, 'netinfo_streams_active{tool="tcp_ping"}'), 0);
  });

  test('the /json answer cache: a miss, then a hit; the loaded IP data by source', async (t) => {
    const metricsPort = await freePort();
    let time = Date.parse('2030-01-01T00:00:00Z');
    const app = await buildTestApp(
      { METRICS_PORT: String(metricsPort), RATE_LIMITS: 'public=1000/1000' },
      { now: () => time },
    );
    t.after(() => app.close());
    for (let index = 0; index < 2; index++) {
      assert.equal((await app.inject('/api/v1/json/8.8.8.8')).statusCode, 200);
    }
    time += 10_000;
    const { text } = await scrape(metricsPort);
    assert.equal(sample(text, 'netinfo_cache_requests_total{cache="json",result="miss"}'), 1);
    assert.equal(sample(text, 'netinfo_cache_requests_total{cache="json",result="hit"}'), 1);
    // The embedded data: City and ASN, each with its build time and size.
    for (const source of ['location', 'network']) {
      assert.ok((sample(text, `netinfo_data_entries{source="${source}"}`) ?? 0) > 1000, source);
      const age = sample(text, `netinfo_data_age_seconds{source="${source}"}`) ?? 0;
      // Built before 2030 (the clock here), after 2015.
      assert.ok(age > 0 && age < 15 * 365 * 86_400, `${source}: ${age}`);
    }
  });

  test('the API-key cache: the first request with a key misses, the next ones hit', async (t) => {
    const metricsPort = await freePort();
    const accounts = await buildAccountsApp({ METRICS_PORT: String(metricsPort) });
    t.after(() => accounts.close());
    const browser = sessionClient(accounts.app);
    assert.equal((await browser.signup('metrics@example.com', PASSWORD)).statusCode, 201);
    const { key } = (await browser.createKey('k')).json();
    for (let index = 0; index < 3; index++) {
      const response = await accounts.app.inject({ url: '/api/v1/ipv6', headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.statusCode, 200);
    }
    const { text } = await scrape(metricsPort);
    assert.equal(sample(text, 'netinfo_cache_requests_total{cache="key",result="miss"}'), 1);
    assert.equal(sample(text, 'netinfo_cache_requests_total{cache="key",result="hit"}'), 2);
  });

  describe('with WORKERS=2', { skip: redisSkipReason }, () => {
    let redis: TestRedis;
    before(async () => {
      redis = await startRedis();
    });
    after(() => redis?.stop());

    test('one scrape sums both workers', async (t) => {
      const metricsPort = await freePort();
      const service = await startServiceProcess({
        REDIS_URL: redis.url,
        WORKERS: '2',
        METRICS_PORT: String(metricsPort),
        RATE_LIMITS: 'public=100000/100000',
      });
      t.after(() => service.stop());
      // A new connection per request: the kernel spreads connections over the workers (reusePort).
      for (let index = 0; index < 20; index++) {
        const response = await fetch(`${service.url}/api/v1/ipv6`, { headers: { connection: 'close' } });
        assert.equal(response.status, 200);
        await response.text();
      }
      const { text } = await scrape(metricsPort);
      assert.equal(sample(text, 'netinfo_http_requests_total{route="/api/v1/ipv6",method="GET",status="200"}'), 20);
      // Both workers' default metrics are in it too: their heaps, summed.
      assert.ok((sample(text, 'nodejs_heap_size_used_bytes') ?? 0) > 0);
    });
  });
});

/** How many TCP sockets `pid` listens on, from /proc (its fds matched to the kernel's socket table). */
async function listeningSocketCount(pid: number): Promise<number> {
  const { readdir, readlink, readFile } = await import('node:fs/promises');
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1] as string);
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = (await readFile(table, 'utf8')).split('\n').slice(1);
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      // st 0A is LISTEN; field 9 is the inode.
      if (fields[3] === '0A' && inodes.has(fields[9] as string)) count++;
    }
  }
  return count;
}
