import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, manualClock } from '../support/app.ts';
import { freePort } from '../support/free-port.ts';
import { type FakeRegistries, startFakeRegistries } from './fake-registries.ts';

/**
 * GET /api/v1/abuse and /json's network.abuse end to end: the real app, its resolver asking a fake
 * DNS server that points the registries' RDAP host names at 127.0.0.1, one local HTTP server
 * answering for all of them with the registry-shaped fixtures, and a listener on 127.0.0.2 that a
 * redirect names and the service must never connect to.
 */

describe('GET /api/v1/abuse', () => {
  let fakes: FakeRegistries;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let metricsPort: number;
  const clock = manualClock('2026-11-28T12:00:00Z');
  const base = (host: string, prefix?: string) => fakes.base(host, prefix);
  const asked = (requestPath: string) => fakes.asked(requestPath);

  before(async () => {
    fakes = await startFakeRegistries();
    metricsPort = await freePort();
    app = await buildTestApp(
      { ...fakes.env, ABUSE_MAX_IN_FLIGHT_PER_CLIENT: '1', METRICS_PORT: String(metricsPort) },
      { ...fakes.deps, now: clock.now },
    );
  });
  after(async () => {
    await app?.close();
    await fakes?.close();
  });

  const abuse = async (ip: string) => {
    const response = await app.inject({ url: `/api/v1/abuse?ip=${encodeURIComponent(ip)}` });
    return { status: response.statusCode, body: response.json() };
  };

  it('RIPE NCC: the abuse-c entity at the top of the network', async () => {
    const { status, body } = await abuse('193.0.6.139');
    assert.equal(status, 200);
    assert.deepEqual(body, {
      ip: '193.0.6.139',
      email: 'abuse@ripe.net',
      name: 'RIPE NCC Operations',
      handle: 'OPS4-RIPE',
      registry: 'RIPE NCC',
      source: `${base('rdap.db.ripe.net')}ip/193.0.6.139`,
      network: { handle: '193.0.0.0 - 193.0.7.255', name: 'RIPE-NCC', range: '193.0.0.0 - 193.0.7.255' },
      queried_at: '2026-11-28T12:00:00Z',
      cached: false,
    });
    const ipv6 = await abuse('2001:67C:2E8:22::C100:68B');
    assert.equal(ipv6.status, 200);
    assert.equal(ipv6.body.ip, '2001:67c:2e8:22::c100:68b');
    assert.equal(ipv6.body.source, `${base('rdap.db.ripe.net')}ip/2001:67c:2e8:22::c100:68b`);
    const request = fakes.http.requests.find((one) => one.path === '/ip/193.0.6.139');
    assert.equal(request?.host, `rdap.db.ripe.net:${fakes.http.port}`);
    assert.match(request?.accept ?? '', /application\/rdap\+json/);
  });

  it("ARIN: the abuse contact nested in the organisation's entity, not its technical contact", async () => {
    const { status, body } = await abuse('8.8.8.8');
    assert.equal(status, 200);
    assert.deepEqual(
      [body.email, body.name, body.handle, body.registry, body.network.handle],
      ['network-abuse@google.com', 'Abuse', 'ABUSE5250-ARIN', 'ARIN', 'NET-8-8-8-0-2'],
    );
  });

  it('APNIC: the IRT object with role abuse', async () => {
    const { status, body } = await abuse('::ffff:1.1.1.1');
    assert.equal(status, 200);
    assert.deepEqual(
      [body.ip, body.email, body.handle, body.registry],
      ['1.1.1.1', 'helpdesk@apnic.net', 'IRT-APNICRANDNET-AU', 'APNIC'],
    );
  });

  it('walks up to the parent network when the address’s own names no abuse contact (two requests)', async () => {
    const { status, body } = await abuse('12.34.56.78');
    assert.equal(status, 200);
    assert.equal(body.email, 'abuse@att.net');
    assert.equal(body.handle, 'ABUSE7-ARIN');
    assert.equal(body.source, `${base('rdap.arin.net', '/registry/')}ip/12.0.0.0/8`);
    assert.equal(body.network.handle, 'NET-12-0-0-0-1');
    assert.deepEqual([asked('/registry/ip/12.34.56.78'), asked('/registry/ip/12.0.0.0/8')], [1, 1]);
  });

  it("follows ARIN's redirect to RIPE's server: source and registry say RIPE NCC", async () => {
    const { status, body } = await abuse('194.0.0.1');
    assert.equal(status, 200);
    assert.equal(body.registry, 'RIPE NCC');
    assert.equal(body.source, `${base('rdap.db.ripe.net')}ip/194.0.0.1`);
    assert.equal(
      fakes.http.requests.find((one) => one.path === '/ip/194.0.0.1')?.host,
      `rdap.db.ripe.net:${fakes.http.port}`,
    );
  });

  it('answers 404 naming the registry and the network when no abuse entity is anywhere up the chain', async () => {
    const none = await abuse('41.1.1.1');
    assert.equal(none.status, 404);
    assert.equal(
      none.body.error,
      `AFRINIC names no abuse contact for 41.1.1.1: its RDAP answer about 41.1.0.0 - 41.1.255.255 (${base('rdap.afrinic.net', '/rdap/')}ip/41.1.1.1) has no entity with role "abuse" and an e-mail address, nor has any parent network it links to (3 at most).`,
    );
    const unknown = await abuse('41.4.4.4');
    assert.equal(unknown.status, 404);
    assert.equal(
      unknown.body.error,
      `AFRINIC has no network holding 41.4.4.4 (${base('rdap.afrinic.net', '/rdap/')}ip/41.4.4.4).`,
    );
  });

  it('answers 502 naming the registry for an HTTP 500, a timeout and an answer that is not JSON', async () => {
    const failed = await abuse('177.1.1.1');
    assert.equal(failed.status, 502);
    assert.equal(
      failed.body.error,
      `Abuse contact of 177.1.1.1: LACNIC's RDAP server failed: ${base('rdap.lacnic.net', '/rdap/')}ip/177.1.1.1 at 127.0.0.1: answered HTTP 500.`,
    );
    const started = performance.now();
    const slow = await abuse('41.2.2.2');
    assert.equal(slow.status, 502);
    assert.match(
      slow.body.error,
      /^Abuse contact of 41\.2\.2\.2: AFRINIC's RDAP server failed: .*: no complete answer in time\.$/,
    );
    assert.ok(performance.now() - started < 1400, 'WHOIS_TIMEOUT_MS bounds the request');
    const html = await abuse('41.3.3.3');
    assert.equal(html.status, 502);
    assert.match(html.body.error, /AFRINIC's RDAP server failed: .* answered 200 with a body that is not JSON\.$/);
  });

  it('refuses a redirect to 127.0.0.2 under the target policy, never connecting to it: a 502 naming ARIN', async () => {
    const { status, body } = await abuse('9.9.9.9');
    assert.equal(status, 502);
    assert.match(
      body.error,
      /^Abuse contact of 9\.9\.9\.9: ARIN's RDAP server failed: http:\/\/rdap\.arin\.net:\d+\/registry\/ip\/9\.9\.9\.9: redirected to http:\/\/rdap\.elsewhere\.test:\d+\/ip\/9\.9\.9\.9: .*127\.0\.0\.2.*loopback/,
    );
    assert.equal(fakes.elsewhereConnections(), 0);
  });

  it('serves a repeat from the cache for ABUSE_CACHE_HOURS, asking nobody; a failure is not cached', async () => {
    const before = asked('/ip/1.1.1.1');
    const again = await abuse('1.1.1.1');
    assert.equal(again.status, 200);
    assert.equal(again.body.cached, true);
    assert.equal(again.body.queried_at, '2026-11-28T12:00:00Z');
    assert.equal(asked('/ip/1.1.1.1'), before);
    const none = await abuse('41.1.1.1');
    assert.equal(none.status, 404, 'the answer that there is none is cached too');
    assert.equal(asked('/rdap/ip/41.1.1.1'), 1);
    await abuse('177.1.1.1');
    assert.equal(asked('/rdap/ip/177.1.1.1'), 2);
    clock.advance(24 * 3_600_000);
    const expired = await abuse('1.1.1.1');
    assert.equal(expired.body.cached, false);
    assert.equal(asked('/ip/1.1.1.1'), before + 1);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const hits = Number(/netinfo_cache_requests_total\{cache="abuse",result="hit"\} (\d+)/.exec(metrics)?.[1]);
    assert.ok(hits >= 1, `the abuse cache's hits are counted: ${hits}`);
  });

  it('answers 400 for what is not an address, and for special-purpose addresses, saying why', async () => {
    for (const ip of ['', 'example.com', '010.1.1.1', 'fe80::1%eth0', '8.8.8.0/24']) {
      const { status, body } = await abuse(ip);
      assert.equal(status, 400, ip);
      assert.match(body.error, /^Invalid query parameter 'ip': not an IPv4 address/, ip);
    }
    for (const ip of ['10.0.0.1', '127.0.0.1', '2001:db8::1', '192.0.2.7']) {
      const { status, body } = await abuse(ip);
      assert.equal(status, 400, ip);
      assert.match(body.error, /a special-purpose range no regional registry assigns/, ip);
    }
    assert.equal((await app.inject({ url: '/api/v1/abuse' })).statusCode, 400);
  });

  it('holds lookups under the in-flight cap (here one per caller): one more is a 429', async () => {
    const slow = abuse('41.2.2.2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await abuse('41.5.5.5');
    assert.equal(refused.status, 429);
    assert.match(refused.body.error, /Too many abuse-contact lookups at once/);
    assert.equal(asked('/rdap/ip/41.5.5.5'), 0);
    assert.equal((await slow).status, 502);
  });

  it('/json asks only when fields names network.abuse or a child of it', async () => {
    for (const url of [
      '/api/v1/json/8.8.4.4',
      '/api/v1/json/8.8.4.4?fields=network',
      '/api/v1/json/8.8.4.4?fields=ip',
    ]) {
      assert.equal((await app.inject({ url })).statusCode, 200, url);
    }
    assert.equal(asked('/registry/ip/8.8.4.4'), 0, 'a plain answer and fields=network ask nobody');
    const picked = await app.inject({ url: '/api/v1/json/8.8.4.4?fields=ip,network.abuse.email' });
    assert.equal(picked.statusCode, 200);
    assert.deepEqual(picked.json(), { ip: '8.8.4.4', network: { abuse: { email: 'network-abuse@google.com' } } });
    assert.equal(asked('/registry/ip/8.8.4.4'), 1);
    const whole = (await app.inject({ url: '/api/v1/json/8.8.4.4?fields=network.abuse' })).json();
    assert.equal(whole.network.abuse.registry, 'ARIN');
    assert.equal(asked('/registry/ip/8.8.4.4'), 1, 'from the cache');
    // Nothing to ask about a private address, and nothing found is an absent field, not an error.
    assert.deepEqual((await app.inject({ url: '/api/v1/json/10.0.0.1?fields=network.abuse' })).json(), {});
    assert.deepEqual((await app.inject({ url: '/api/v1/json/41.1.1.1?fields=network.abuse.email' })).json(), {});
    const failed = await app.inject({ url: '/api/v1/json/177.1.1.1?fields=ip,network.abuse' });
    assert.equal(failed.statusCode, 502);
    assert.match(failed.json().error, /LACNIC's RDAP server failed/);
    const caller = await app.inject({
      url: '/api/v1/json?fields=network.abuse.handle',
      remoteAddress: '193.0.6.139',
    });
    assert.deepEqual(caller.json(), { network: { abuse: { handle: 'OPS4-RIPE' } } });
  });

  it('a batch refuses network.abuse in fields with a 400, asking nobody', async () => {
    const before = fakes.http.requests.length;
    for (const fields of ['ip,network.abuse', 'network.abuse.email']) {
      const response = await app.inject({
        method: 'POST',
        url: `/api/v1/batch?fields=${fields}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(['8.8.8.8', '9.9.9.9']),
      });
      assert.equal(response.statusCode, 400, fields);
      assert.match(response.json().error, /network\.abuse.* is not answered in a batch/, fields);
    }
    assert.equal(fakes.http.requests.length, before);
  });

  it('is described in the OpenAPI document, with every status it answers', async () => {
    const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const operation = document.paths['/api/v1/abuse'].get;
    assert.equal(operation.operationId, 'getAbuseContact');
    for (const status of ['200', '400', '404', '429', '502']) assert.ok(operation.responses[status], status);
    for (const path of ['/api/v1/json', '/api/v1/json/{ip}'])
      assert.ok(document.paths[path].get.responses['502'], path);
    const json = document.paths['/api/v1/json/{ip}'].get.responses['200'].content['application/json'].schema;
    const field = json.properties.network.properties.abuse;
    assert.deepEqual(Object.keys(field.properties), ['email', 'name', 'handle', 'registry', 'source', 'network']);
    assert.match(field.description, /Only when `fields` names `network.abuse`/);
  });
});
