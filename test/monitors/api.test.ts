import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';
import { signedBy, startWebhookReceiver } from '../support/webhook-receiver.ts';

type Setup = Awaited<ReturnType<typeof buildAccountsApp>>;
type App = Setup['app'];

/** A server on 127.0.0.2, outside ALLOW_PRIVATE_TARGETS: it counts every connection it is offered. */
async function forbiddenListener() {
  let connections = 0;
  const server: Server = createServer((_request, response) => response.end('should never be reached'));
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return {
    url: `http://127.0.0.2:${(server.address() as AddressInfo).port}/hook`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The site the monitors watch: its status is the test's to set. */
async function watchedSite() {
  let status = 200;
  let hits = 0;
  const server = createServer((_request, response) => {
    hits++;
    response.writeHead(status);
    response.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    set: (next: number) => {
      status = next;
    },
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('the monitors API', () => {
  let setup: Setup;
  let app: App;
  let headers: Record<string, string>;
  let keyHeaders: Record<string, string>;
  let site: Awaited<ReturnType<typeof watchedSite>>;
  let forbidden: Awaited<ReturnType<typeof forbiddenListener>>;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;

  const create = (payload: object, as = headers) =>
    app.inject({ method: 'POST', url: '/api/v1/monitors', headers: as, payload });
  const get = (url: string, as = headers) => app.inject({ url, headers: as });
  const runsOf = async (id: string) => (await get(`/api/v1/monitors/${id}/runs?limit=1000`)).json().runs;

  before(async () => {
    site = await watchedSite();
    forbidden = await forbiddenListener();
    hooks = await startWebhookReceiver();
    setup = await buildAccountsApp({
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      MONITOR_MIN_INTERVAL_SECONDS: 'free=2,pro=1',
      MONITOR_LIMITS: 'free=3,pro=200',
      WEBHOOK_RETRY_BASE_SECONDS: '1',
    });
    app = setup.app;
    const session = sessionClient(app);
    await session.signup('monitors@example.com', PASSWORD);
    headers = { cookie: session.state.cookie, 'x-csrf-token': session.state.csrf };
    const key = (await session.createKey('monitors')).json().key;
    keyHeaders = { authorization: `Bearer ${key}` };
  });
  after(async () => {
    await setup.close();
    await Promise.all([site.close(), forbidden.close(), hooks.close()]);
  });

  it('belongs to an account: no key and no session is a 401; a session without its CSRF token may read, not change', async () => {
    const anonymous = await app.inject({ url: '/api/v1/monitors' });
    assert.equal(anonymous.statusCode, 401);
    assert.match(anonymous.json().error, /API key .* or sign in/);
    const { cookie } = headers;
    assert.equal((await get('/api/v1/monitors', { cookie: cookie ?? '' })).statusCode, 200);
    const noToken = await create({ name: 'x', type: 'http', target: site.url }, { cookie: cookie ?? '' });
    assert.equal(noToken.statusCode, 403);
    assert.equal((await get('/api/v1/monitors', keyHeaders)).statusCode, 200, 'an API key of the account');
  });

  it('refuses what the route or the plan would refuse, naming the field', async () => {
    const cases: [object, RegExp][] = [
      [{ name: 'x', type: 'whois', target: 'a' }, /'type'/],
      [
        { name: 'x', type: 'http', target: site.url, interval_seconds: 1 },
        /every 2 s \(MONITOR_MIN_INTERVAL_SECONDS\)/,
      ],
      [
        { name: 'x', type: 'http', target: site.url, conditions: { loss_over: 5 } },
        /'conditions.loss_over'.*not a condition of http/,
      ],
      [{ name: 'x', type: 'http', target: site.url, conditions: { total_ms_over: -1 } }, /total_ms_over/],
      [{ name: 'x', type: 'http', target: site.url, options: { method: 'PUT' } }, /'options.method'.*GET, HEAD/],
      [{ name: 'x', type: 'dns', target: 'example.com' }, /options.record_type/],
      [{ name: 'x', type: 'ping', target: '-f' }, /'target'/],
      [
        { name: 'x', type: 'http', target: 'http://127.0.0.1:9/' },
        /'target'.*port 9 is not one the HTTP check connects to/,
      ],
      [{ name: 'x', type: 'http', target: 'ftp://example.com/' }, /'target'.*only http:\/\/ and https:\/\//],
      [
        { name: 'x', type: 'http', target: site.url, from: [{ country: 'FR' }] },
        /from\[0\] \(country=FR\) matches no node/,
      ],
      [{ name: 'x', type: 'http', target: site.url, notify: { emails: ['a@example.com'] } }, /SMTP_URL is not set/],
      [{ name: 'x', type: 'http', target: site.url, notify: { webhooks: ['ftp://x/'] } }, /'notify.webhooks\[0\]'/],
    ];
    for (const [payload, message] of cases) {
      const response = await create(payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.match(response.json().error, message, JSON.stringify(payload));
    }
  });

  it('refuses a webhook at 127.0.0.2 when it is set, and nothing reaches it', async () => {
    const response = await create({ name: 'x', type: 'http', target: site.url, notify: { webhooks: [forbidden.url] } });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error, /'notify.webhooks\[0\]'.*127\.0\.0\.2 is a loopback address/);
    assert.equal(forbidden.connections(), 0);
  });

  it('runs at once and on its interval, notifies each change with a signed webhook, and keeps runs and incidents', async () => {
    const created = await create(
      {
        name: 'site',
        type: 'http',
        target: site.url,
        interval_seconds: 2,
        conditions: { status_not: [200] },
        notify: { webhooks: [hooks.url('/site')] },
      },
      keyHeaders,
    );
    assert.equal(created.statusCode, 201, created.body);
    const monitor = created.json();
    assert.match(monitor.webhook_secret, /^whsec_/);
    assert.equal((await get(`/api/v1/monitors/${monitor.id}`)).json().webhook_secret, undefined, 'shown once');
    await until('the first run', async () => ((await runsOf(monitor.id)).length > 0 ? true : undefined));
    assert.equal(hooks.received.length, 0, 'a first state of up is not news');
    site.set(503);
    const [down] = await hooks.waitFor(1);
    site.set(200);
    const [, up] = await hooks.waitFor(2);
    for (const hook of [down, up]) {
      assert.ok(hook && signedBy(monitor.webhook_secret, String(hook.headers['x-netinfo-signature']), hook.body));
    }
    const downBody = JSON.parse(down?.body ?? '{}');
    assert.equal(downBody.event, 'monitor.down');
    assert.equal(downBody.previous_state, 'up');
    assert.deepEqual(downBody.monitor, { id: monitor.id, name: 'site', type: 'http', target: site.url });
    assert.match(downBody.incident.cause, /status 503 is not 200/);
    assert.equal(downBody.run.summary.status, 503);
    const upBody = JSON.parse(up?.body ?? '{}');
    assert.equal(upBody.incident.id, downBody.incident.id);
    assert.ok(upBody.incident.ended_at);

    const runs = await runsOf(monitor.id);
    const dues = runs.map((run: { due_at: string }) => Date.parse(run.due_at)).sort();
    assert.equal(new Set(dues).size, dues.length, 'each due time once');
    for (let i = 1; i < dues.length; i++) assert.equal(dues[i] - dues[i - 1], 2000, 'on a 2 s grid');
    for (const run of runs) assert.ok(Date.parse(run.started_at) - Date.parse(run.due_at) < 500, 'on time');
    const incidents = (await get(`/api/v1/monitors/${monitor.id}/incidents`)).json().incidents;
    assert.equal(incidents.length, 1);
    const view = (await get(`/api/v1/monitors/${monitor.id}`)).json();
    assert.equal(view.state, 'up');
    assert.equal(view.incident, null);
    assert.ok(view.uptime['24h'] > 0 && view.uptime['24h'] < 100);
    // The receiver answered; the attempt is recorded a moment later.
    const deliveries = await until('both recorded', async () => {
      const list = (await get(`/api/v1/monitors/${monitor.id}/deliveries`)).json().deliveries;
      return list.every((delivery: { state: string }) => delivery.state !== 'pending') ? list : undefined;
    });
    assert.deepEqual(
      deliveries.map((delivery: { event: string; state: string }) => `${delivery.event} ${delivery.state}`),
      ['monitor.up delivered', 'monitor.down delivered'],
    );

    // Paged newest first through the cursor.
    const page = (await get(`/api/v1/monitors/${monitor.id}/runs?limit=1`)).json();
    const next = (await get(`/api/v1/monitors/${monitor.id}/runs?limit=1&before=${page.next}`)).json();
    assert.ok(Date.parse(next.runs[0].started_at) <= Date.parse(page.runs[0].started_at));

    // Paused: no more runs; deleted: gone.
    assert.equal(
      (
        await app.inject({
          method: 'PATCH',
          url: `/api/v1/monitors/${monitor.id}`,
          headers: keyHeaders,
          payload: { paused: true },
        })
      ).json().paused,
      true,
    );
    const hits = site.hits();
    await sleep(2500);
    assert.ok(site.hits() <= hits + 1, 'at most the run under way when it was paused');
    assert.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/monitors/${monitor.id}`, headers: keyHeaders })).statusCode,
      204,
    );
    assert.equal((await get(`/api/v1/monitors/${monitor.id}`)).statusCode, 404);
  });

  it('retries a failing receiver with backoff, and a 410 removes the URL', async () => {
    let calls = 0;
    hooks.answer((hook) => {
      if (hook.path === '/gone') return { status: 410 };
      calls++;
      return { status: calls < 3 ? 500 : 204 };
    });
    site.set(500);
    const created = await create({
      name: 'retries',
      type: 'http',
      target: site.url,
      interval_seconds: 60,
      notify: { webhooks: [hooks.url('/flaky'), hooks.url('/gone')] },
    });
    const id = created.json().id;
    const delivered = await until('three attempts', async () => {
      const list = (await get(`/api/v1/monitors/${id}/deliveries`)).json().deliveries;
      const flaky = list.find((delivery: { url: string }) => delivery.url.endsWith('/flaky'));
      return flaky?.state === 'delivered' ? list : undefined;
    });
    const flaky = delivered.find((delivery: { url: string }) => delivery.url.endsWith('/flaky'));
    assert.deepEqual(
      flaky.attempts.map((attempt: { status: number }) => attempt.status),
      [500, 500, 204],
    );
    const at = flaky.attempts.map((attempt: { at: string }) => Date.parse(attempt.at));
    assert.ok(at[1] - at[0] >= 1000 && at[1] - at[0] < 1800, `1 s, then ${at[1] - at[0]}`);
    assert.ok(at[2] - at[1] >= 2000 && at[2] - at[1] < 2800, `2 s, then ${at[2] - at[1]}`);
    const gone = delivered.find((delivery: { url: string }) => delivery.url.endsWith('/gone'));
    assert.equal(gone.state, 'removed');
    assert.deepEqual((await get(`/api/v1/monitors/${id}`)).json().notify.webhooks, [hooks.url('/flaky')]);
    hooks.answer(() => ({ status: 200 }));
    site.set(200);
  });

  it('refuses a redirect to 127.0.0.2 at delivery, and nothing reaches it', async () => {
    hooks.answer((hook) =>
      hook.path === '/redirect' ? { status: 307, headers: { location: forbidden.url } } : { status: 200 },
    );
    site.set(500);
    const id = (
      await create({
        name: 'redirect',
        type: 'http',
        target: site.url,
        interval_seconds: 60,
        notify: { webhooks: [hooks.url('/redirect')] },
      })
    ).json().id;
    const attempt = await until('an attempt', async () => {
      const [delivery] = (await get(`/api/v1/monitors/${id}/deliveries`)).json().deliveries;
      return delivery?.attempts[0];
    });
    assert.equal(attempt.status, null);
    assert.match(
      attempt.error,
      /the redirect to http:\/\/127\.0\.0\.2:\d+\/hook is refused: 127\.0\.0\.2 is a loopback address/,
    );
    assert.equal(forbidden.connections(), 0);
    hooks.answer(() => ({ status: 200 }));
    site.set(200);
  });

  it('a free account may have MONITOR_LIMITS monitors', async () => {
    const other = sessionClient(app, { ip: '127.0.0.9' });
    await other.signup('quota@example.com', PASSWORD);
    const as = { cookie: other.state.cookie, 'x-csrf-token': other.state.csrf };
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await create({ name: `m${i}`, type: 'http', target: site.url, paused: true }, as)).statusCode);
    }
    assert.deepEqual(statuses, [201, 201, 201, 403]);
    const list = (await get('/api/v1/monitors', as)).json().monitors;
    assert.equal(list.length, 3);
    assert.equal((await get(`/api/v1/monitors/${list[0].id}`)).statusCode, 404, "another account's monitor");
  });
});
