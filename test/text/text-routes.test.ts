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

type Json = Record<string, Record<string, unknown> & { ip: string }>;
/** What each text path must show, read from the /api/v1/json answer here (not through the product's table). */
const FROM_JSON: Record<string, (a: Json[string]) => unknown> = {
  ip: (a) => a.ip,
  country: (a) => (a.location as Record<string, unknown> | undefined)?.country,
  'country-iso': (a) => (a.location as Record<string, unknown> | undefined)?.countryCode,
  city: (a) => (a.location as Record<string, unknown> | undefined)?.city,
  region: (a) => (a.location as Record<string, unknown> | undefined)?.region,
  asn: (a) => (a.network as Record<string, unknown> | undefined)?.asn,
  'asn-org': (a) => (a.network as Record<string, unknown> | undefined)?.provider,
  hostname: (a) => a.hostname,
  timezone: (a) => (a.location as Record<string, unknown> | undefined)?.timezone,
  coordinates: (a) => {
    const location = a.location as { latitude?: number; longitude?: number } | undefined;
    return location?.latitude === undefined ? undefined : `${location.latitude},${location.longitude}`;
  },
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

  it('each text path shows the /api/v1/json value as one line, about the caller or ?ip=', async () => {
    for (const ip of ['8.8.8.8', '81.2.69.160', '2001:4860:4860::8888']) {
      const json = (await get('/api/v1/json', {}, ip)).json() as Json[string];
      for (const [path, expected] of Object.entries(FROM_JSON)) {
        for (const url of [`/${path}`, `/${path}?ip=${ip}`]) {
          const response = await get(url, CURL, url.includes('?') ? '9.9.9.9' : ip);
          const value = expected(json);
          assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8', url);
          if (value === undefined) {
            assert.equal(response.statusCode, 404, `${url}: ${response.body}`);
            assert.match(response.body, new RegExp(`^No [a-zA-Z ]+ is known for ${ip.replaceAll('.', '\\.')}\\.\\n$`));
          } else {
            assert.equal(response.statusCode, 200, url);
            assert.equal(response.body, `${value}\n`, url);
          }
        }
      }
    }
    assert.equal((await get('/hostname', CURL)).body, 'dns.google\n', 'through the resolver');
    assert.equal((await get('/asn', CURL)).body, 'AS15169\n');
    assert.equal(
      (await get('/coordinates?ip=::ffff:8.8.8.8', CURL)).body,
      '37.751,-97.822\n',
      'mapped: the IPv4 address',
    );
  });

  it('a private address: 404 lines that say why', async () => {
    const response = await get('/city?ip=192.168.1.1', CURL);
    assert.equal(response.statusCode, 404);
    assert.equal(response.body, 'No city is known for 192.168.1.1 (a private address).\n');
  });

  it('a bad ?ip=: a 400 line naming the parameter', async () => {
    for (const bad of ['010.1.1.1', 'fe80::1%25eth0', 'example.com']) {
      const response = await get(`/country?ip=${bad}`, CURL);
      assert.equal(response.statusCode, 400, bad);
      assert.match(response.body, /^Invalid query parameter 'ip': .+\.\n$/);
    }
  });

  it('GET /json answers like /api/v1/json, and ?ip= like /api/v1/json/{ip}', async () => {
    const own = await get('/json', CURL, '81.2.69.160');
    assert.equal(own.body, (await get('/api/v1/json', CURL, '81.2.69.160')).body);
    assert.equal(own.headers['content-type'], 'application/json; charset=utf-8');
    const other = await get('/json?ip=1.1.1.1&fields=ip,network.asn', CURL);
    assert.equal(other.body, (await get('/api/v1/json/1.1.1.1?fields=ip,network.asn', CURL)).body);
    assert.deepEqual(other.json(), { ip: '1.1.1.1', network: { asn: 'AS13335' } });
    const bad = await get('/json?ip=010.1.1.1', CURL);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error, /Invalid query parameter 'ip': leading zeros/);
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

  it('OpenAPI documents every text path as text/plain', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const path of ['/', ...Object.keys(FROM_JSON).map((p) => `/${p}`)]) {
      const operation = doc.paths[path]?.get;
      assert.ok(operation, path);
      assert.deepEqual(operation.tags, ['text'], path);
      assert.ok(operation.responses['200'].content['text/plain'], path);
    }
    assert.ok(doc.paths['/json'].get);
  });
});
