import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../support/app.ts';
import { createFakeResolver } from '../support/fake-resolver.ts';

const CURL = { accept: '*/*', 'user-agent': 'curl/8.5.0' };
const HTTPIE = { accept: 'application/json, */*;q=0.5', 'user-agent': 'HTTPie/3.2.2' };
const BROWSER = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'user-agent': 'Mozilla/5.0',
};

type Echo = Record<string, unknown> & { ip: string; latitude?: number; longitude?: number };
const six = (value: number | undefined) => (value ?? 0).toFixed(6);
/**
 * What each text path must show, read here from the ifconfig.co object of GET /json (and the
 * reverse name from /api/v1/json), not through the product's table: an empty string where unknown.
 */
const FROM_ECHO: Record<string, (a: Echo, hostname: string | undefined) => unknown> = {
  ip: (a) => a.ip,
  country: (a) => a.country,
  'country-iso': (a) => a.country_iso,
  city: (a) => a.city,
  region: (a) => a.region_name,
  asn: (a) => a.asn,
  'asn-org': (a) => a.asn_org,
  hostname: (_a, hostname) => hostname,
  timezone: (a) => a.time_zone,
  coordinates: (a) => `${six(a.latitude)},${six(a.longitude)}`,
};

describe('plain text for terminals, and GET / by Accept', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  const limited = new Map<string, boolean | undefined>();
  before(async () => {
    const resolver = createFakeResolver({ names: { '8.8.8.8': 'dns.google', '81.2.69.160': 'gw.example.test' } });
    app = await buildTestApp({ TRUST_PROXY: 'loopback', HOSTNAME_TIMEOUT_MS: '300' }, { resolver });
    app.addHook('onRequest', (request, _reply, done) => {
      limited.set(`${request.url} ${request.headers.accept ?? ''}`, request.routeOptions.config.rateLimited);
      done();
    });
  });
  after(() => app?.close());

  const get = (url: string, headers: Record<string, string>, from = '8.8.8.8') =>
    app.inject({ url, headers: { ...headers, 'x-forwarded-for': from } });

  it("GET / from curl, wget, HTTPie or no Accept: the caller's IP and a newline, as text", async () => {
    for (const headers of [CURL, HTTPIE, { 'user-agent': 'Wget/1.21.4', accept: '*/*' }, {}]) {
      const response = await get('/', headers);
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '8.8.8.8\n');
      assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(response.headers['access-control-allow-origin'], '*', 'CORS as the API');
      assert.ok(response.headers['x-request-id']);
      assert.equal(response.headers['cache-control'], 'no-store');
    }
    assert.equal((await get('/', CURL, '2001:db8::5')).body, '2001:db8::5\n');
  });

  it('GET / from a browser: the home page, with the IP and its facts from /api/v1/json, under the site CSP', async () => {
    const response = await get('/', BROWSER);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(response.body, /<p class="address" id="my-ip">8\.8\.8\.8<\/p>/);
    assert.match(response.body, /href="\/lookup\/AS15169"/);
    assert.match(response.body, /href="\/docs"/);
    // Scripts only as files of this origin, never inline.
    assert.doesNotMatch(response.body, /<script(?![^>]*\ssrc="\/assets\/)/);
    assert.match(
      response.headers['content-security-policy'] as string,
      /default-src 'self'; script-src 'self'; style-src 'self'/,
    );
  });

  it('each text path shows its value as one line, about the caller or ?ip=; an unknown value is an empty line', async () => {
    for (const ip of ['8.8.8.8', '81.2.69.160', '2001:4860:4860::8888']) {
      const echo = (await get('/json', CURL, ip)).json() as Echo;
      const { hostname } = (await get('/api/v1/json', {}, ip)).json() as { hostname?: string };
      for (const [path, expected] of Object.entries(FROM_ECHO)) {
        for (const url of [`/${path}`, `/${path}?ip=${ip}`]) {
          const response = await get(url, CURL, url.includes('?') ? '9.9.9.9' : ip);
          assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8', url);
          assert.equal(response.statusCode, 200, url);
          assert.equal(response.body, `${expected(echo, hostname) ?? ''}\n`, url);
        }
      }
    }
    assert.equal((await get('/hostname', CURL)).body, 'dns.google\n', 'through the resolver');
    assert.equal((await get('/asn', CURL)).body, 'AS15169\n');
    assert.equal((await get('/city', CURL)).body, '\n', 'no city for 8.8.8.8 in the test database');
    assert.equal(
      (await get('/coordinates?ip=::ffff:8.8.8.8', CURL)).body,
      '37.751000,-97.822000\n',
      'mapped: the IPv4 address, six decimals as ifconfig.co prints them',
    );
    assert.equal((await get('/?ip=::ffff:8.8.8.8', CURL)).body, '8.8.8.8\n', 'GET / echoes ?ip= as ifconfig.co does');
  });

  it('a private address: empty lines, coordinates 0.000000,0.000000 (ifconfig.co prints them so)', async () => {
    for (const path of ['/city', '/country', '/asn', '/region', '/timezone', '/hostname']) {
      const response = await get(`${path}?ip=192.168.1.1`, CURL);
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '\n', path);
    }
    assert.equal((await get('/coordinates?ip=192.168.1.1', CURL)).body, '0.000000,0.000000\n');
  });

  it('a bad ?ip=: a 400 line naming the parameter', async () => {
    for (const bad of ['010.1.1.1', 'fe80::1%25eth0', 'example.com']) {
      const response = await get(`/country?ip=${bad}`, CURL);
      assert.equal(response.statusCode, 400, bad);
      assert.match(response.body, /^Invalid query parameter 'ip': .+\.\n$/);
    }
  });

  it("GET /json and GET / with Accept: application/json: ifconfig.co's object; ?ip= asks about another address", async () => {
    const own = await get('/json', CURL, '81.2.69.160');
    assert.equal(own.headers['content-type'], 'application/json');
    const body = own.json();
    assert.equal(body.ip, '81.2.69.160');
    assert.equal(body.hostname, 'gw.example.test', 'the reverse name, as ifconfig.co shows it');
    assert.deepEqual(body.user_agent, { product: 'curl', version: '8.5.0', raw_value: 'curl/8.5.0' });
    assert.ok(!own.body.endsWith('\n'), 'Go writes no newline after the object');
    const root = await get('/', { accept: 'application/json' }, '81.2.69.160');
    assert.equal(root.headers['content-type'], 'application/json');
    assert.deepEqual(root.json(), { ...body, user_agent: { product: 'lightMyRequest', raw_value: 'lightMyRequest' } });
    const other = (await get('/json?ip=1.1.1.1', CURL)).json();
    assert.equal(other.ip, '1.1.1.1');
    assert.equal(other.ip_decimal, 16843009);
    assert.equal(other.asn, 'AS13335');
    const bad = await get('/json?ip=010.1.1.1', CURL);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /Invalid query parameter 'ip': leading zeros/);
    assert.equal((await get('/json?fields=ip', CURL)).statusCode, 400, "fields is /api/v1/json's, not ifconfig.co's");
  });

  it('HEAD / is 204 with no body for every client, as on ifconfig.co', async () => {
    for (const headers of [CURL, BROWSER, {}]) {
      const response = await app.inject({ method: 'HEAD', url: '/', headers });
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
    }
  });

  it('the text answers that look something up are limited routes; the address itself and the page are not', async () => {
    limited.clear();
    await get('/', CURL);
    await get('/ip', CURL);
    await get('/', BROWSER);
    await get('/city', CURL);
    await get('/json', CURL);
    assert.equal(limited.get(`/ ${CURL.accept}`), undefined);
    assert.equal(limited.get(`/ip ${CURL.accept}`), undefined);
    assert.equal(limited.get(`/ ${BROWSER.accept}`), undefined);
    assert.equal(limited.get(`/city ${CURL.accept}`), true);
    assert.equal(limited.get(`/json ${CURL.accept}`), true);
  });

  it('OpenAPI documents every text path as text/plain, and the JSON ones', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const path of ['/', ...Object.keys(FROM_ECHO).map((p) => `/${p}`)]) {
      const operation = doc.paths[path]?.get;
      assert.ok(operation, path);
      assert.deepEqual(operation.tags, ['text'], path);
      assert.ok(operation.responses['200'].content['text/plain'], path);
    }
    assert.ok(doc.paths['/json'].get.responses['200'].content['application/json']);
    assert.ok(doc.paths['/'].get.responses['200'].content['application/json'], 'the JSON face of GET /');
    assert.ok(doc.paths['/'].head.responses['204']);
  });
});
