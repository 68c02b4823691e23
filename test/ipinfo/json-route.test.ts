import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { FastifyInstance } from 'fastify';
import { formatServer } from '../../src/dns/servers.ts';
import { CONNECTION_TYPES, SECURITY_SOURCES } from '../../src/ipinfo/answers/json-schema.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';
import {
  expectedFromJson,
  expectedLocation,
  FEED_FILES,
  feedDir,
  feedSkip,
  mmdbPath,
} from '../support/mmdb-fixtures.ts';

const skip = feedSkip;

type Json = Record<string, unknown>;
const TOP_LEVEL = ['ip', 'ipv6', 'hostname', 'type', 'class', 'special', 'location', 'network', 'security'];
const LOCATION_STRINGS = [
  'country',
  'countryCode',
  'city',
  'region',
  'regionCode',
  'continent',
  'continentCode',
  'timezone',
  'postalCode',
];
const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/** The spec's types, field by field, plus what the schema documents for the extensions. */
function assertSpecTypes(body: Json): void {
  for (const key of Object.keys(body)) assert.ok(TOP_LEVEL.includes(key), `undocumented field ${key}`);
  assert.equal(typeof body.ip, 'string');
  if ('ipv6' in body) assert.equal(body.ipv6, body.ip, 'ipv6 is the IPv6 client address, the same as ip');
  if ('hostname' in body) assert.equal(typeof body.hostname, 'string');
  if ('type' in body) assert.ok((CONNECTION_TYPES as readonly unknown[]).includes(body.type), String(body.type));
  if ('class' in body) assert.match(String(body.class), /^[A-E]$/);
  const location = body.location as Json | undefined;
  if (location !== undefined) {
    for (const key of LOCATION_STRINGS) if (key in location) assert.equal(typeof location[key], 'string', key);
    for (const key of ['latitude', 'longitude', 'accuracyRadius']) {
      if (key in location) assert.equal(typeof location[key], 'number', key);
    }
    if ('timezone' in location) assert.ok(TIME_ZONES.has(String(location.timezone)), 'an IANA zone name');
    if ('countryCode' in location) assert.match(String(location.countryCode), /^[A-Z]{2}$/);
  }
  const network = body.network as Json | undefined;
  if (network !== undefined) {
    if ('provider' in network) assert.equal(typeof network.provider, 'string');
    if ('asn' in network) assert.match(String(network.asn), /^AS\d+$/, 'AS followed by the number');
    if ('route' in network) assert.match(String(network.route), /^[0-9a-f.:]+\/\d+$/);
  }
  const security = body.security as Json;
  assert.equal(typeof security.bogon, 'boolean');
  for (const key of ['proxy', 'vpn', 'tor', 'hosting'])
    if (key in security) assert.equal(typeof security[key], 'boolean');
  assert.ok(Array.isArray(security.sources));
  for (const source of security.sources as unknown[])
    assert.ok((SECURITY_SOURCES as readonly unknown[]).includes(source));
}

const PTR: Answer[] = [
  { type: 'PTR', name: '142.69.2.81.in-addr.arpa', ttl: 3600, class: 'IN', data: 'london-gw.isp.test' },
];

describe('GET /api/v1/json through X-Forwarded-For (TRUST_PROXY=loopback), operator databases, real feeds', {
  skip,
  timeout: 60_000,
}, () => {
  let dns: FakeDnsServer;
  let feeds: LocalHttpServer;
  let app: FastifyInstance;
  let dataDir: string;

  before(async () => {
    dns = await startFakeDnsServer(async (question, context) => {
      if (question.name.startsWith('1.200.243.201')) return 'drop'; // a dead reverse zone
      return recordsHandler(PTR, 'in-addr.arpa')(question, context);
    });
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'json-route-'));
    // The feeds arrive the way they do in production: through the updater, here from loopback.
    feeds = await startLocalHttpServer();
    for (const [id, file] of Object.entries(FEED_FILES))
      feeds.set(`/${id}`, { body: readFileSync(path.join(feedDir, file)) });
    const urls = Object.fromEntries(Object.keys(FEED_FILES).map((id) => [id, `${feeds.origin}/${id}`]));
    const reports = await runDataUpdate({
      dataDir,
      urls: { city: null, asn: null, ...urls } as Parameters<typeof runDataUpdate>[0]['urls'],
      skip: {},
      licenseKey: null,
    });
    assert.ok(
      reports.every((r) => r.outcome !== 'failed'),
      JSON.stringify(reports),
    );

    app = await buildTestApp({
      TRUST_PROXY: 'loopback',
      DATA_DIR: dataDir,
      DNS_SERVERS: formatServer(dns.server),
      HOSTNAME_TIMEOUT_MS: '300',
      GEOIP_CITY_DB: mmdbPath('GeoIP2-City-Test'),
      GEOIP_ASN_DB: mmdbPath('GeoIP2-ISP-Test'),
      GEOIP_ANONYMOUS_DB: mmdbPath('GeoIP2-Anonymous-IP-Test'),
      GEOIP_CONNECTION_TYPE_DB: mmdbPath('GeoIP2-Connection-Type-Test'),
    });
  });
  after(async () => {
    await app?.close();
    await dns?.close();
    await feeds?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ask = async (forwardedFor: string) => {
    const response = await app.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': forwardedFor } });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Json;
    assertSpecTypes(body);
    return { body, headers: response.headers };
  };

  it('an anonymising London address: every field, from the test databases and the PTR record', async () => {
    const { body, headers } = await ask('81.2.69.142');
    assert.deepEqual(body, {
      ip: '81.2.69.142',
      hostname: 'london-gw.isp.test',
      type: 'hosting', // the Anonymous IP database lists it as a hosting provider
      class: 'A',
      location: expectedLocation('GeoIP2-City-Test', '81.2.69.142'),
      // Not in the ISP test database: no network, and so no ASN-list sources.
      security: {
        bogon: false,
        proxy: true,
        vpn: true,
        tor: true,
        hosting: true,
        sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'anonymous-ip-database'],
      },
    });
    assert.equal((body.location as Json).city, 'London');
    assert.equal(headers['x-data-attribution'], undefined, 'commercial GeoIP2 data: no credit owed, no header');
  });

  it('a corporate line with no reverse name: business, no hostname', async () => {
    const { body } = await ask('216.160.83.56');
    assert.equal(body.type, 'business');
    assert.equal('hostname' in body, false);
    assert.deepEqual(body.location, expectedLocation('GeoIP2-City-Test', '216.160.83.56'));
    assert.deepEqual((body.security as Json).vpn, false);
  });

  it('a dead reverse zone costs at most HOSTNAME_TIMEOUT_MS, once', async () => {
    const started = performance.now();
    const { body } = await ask('201.243.200.1');
    assert.ok(performance.now() - started < 1500);
    assert.equal('hostname' in body, false);
    const again = performance.now();
    await ask('201.243.200.1');
    assert.ok(performance.now() - again < 250, 'remembered: not waiting HOSTNAME_TIMEOUT_MS again');
  });

  it('an IPv6 client: ip and ipv6 hold its address, no class', async () => {
    const { body } = await ask('2001:480:3a::1');
    assert.equal(body.ip, '2001:480:3a::1');
    assert.equal(body.ipv6, '2001:480:3a::1');
    assert.equal('class' in body, false);
    assert.deepEqual(body.security, {
      bogon: false,
      proxy: true, // a public proxy per the Anonymous IP database
      vpn: false,
      tor: false,
      hosting: false,
      // This Tor snapshot (a mirror) lists IPv6 exits too, so it covers IPv6.
      sources: ['tor-exit-list', 'vpn-networks', 'datacenter-networks', 'anonymous-ip-database'],
    });
  });

  it('IPv6 geolocation, checked against the source record', async () => {
    const { body } = await ask('2001:218::1');
    assert.deepEqual(body.location, expectedLocation('GeoIP2-City-Test', '2001:218::1'));
    assert.equal((body.location as Json).countryCode, 'JP');
    assert.equal(body.ipv6, '2001:218::1');
  });

  it('network from the ISP database, checked against its source record; the ASN lists then apply', async () => {
    const expected = expectedFromJson<{ isp?: string; autonomous_system_number?: number }>(
      'GeoIP2-ISP-Test',
      '1.128.0.1',
    );
    const { body } = await ask('1.128.0.1');
    assert.deepEqual(body.network, {
      provider: expected?.record.isp,
      asn: `AS${expected?.record.autonomous_system_number}`,
      route: expected?.route,
    });
    assert.deepEqual(body.network, { provider: 'Telstra Internet', asn: 'AS1221', route: '1.128.0.0/11' });
    assert.ok(((body.security as Json).sources as string[]).includes('datacenter-asns'));
  });

  it('the real snapshots: a Tor exit, a VPN network, a datacenter network', async () => {
    assert.equal(((await ask('101.99.92.179')).body.security as Json).tor, true);
    const vpn = (await ask('2.56.19.1')).body;
    assert.equal((vpn.security as Json).vpn, true);
    assert.equal((vpn.security as Json).hosting, true);
    assert.equal(vpn.type, 'hosting');
    assert.equal(((await ask('2001:ac8::1')).body.security as Json).vpn, true);
  });

  it('a private address behind the proxy: 200, bogon, class, nothing invented', async () => {
    const { body } = await ask('192.168.10.20');
    assert.deepEqual(body, {
      ip: '192.168.10.20',
      class: 'C',
      special: { kind: 'private', range: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918' },
      security: { bogon: true, sources: [] },
    });
  });

  it('the socket peer when there is no forwarding header, and the rate-limit headers as everywhere', async () => {
    const response = await app.inject({ url: '/api/v1/json' });
    assert.equal(response.json().ip, '127.0.0.1');
    assert.equal(response.json().security.bogon, true);
    assert.ok(response.headers['x-ratelimit-limit']);
  });

  it('answers about the caller are no-store, first answer and cached repeat alike, and documented so', async () => {
    for (const url of ['/api/v1/json', '/api/v1/json', '/api/v1/ipv6']) {
      const response = await app.inject({ url, headers: { 'x-forwarded-for': '81.2.69.160' } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['cache-control'], 'no-store', url);
    }
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const path of ['/api/v1/json', '/api/v1/ipv6']) {
      assert.match(doc.paths[path].get.responses['200'].headers['Cache-Control'].description, /no-store/, path);
    }
  });

  it('readiness names what is loaded, and OpenAPI documents the route', async () => {
    const ready = (await app.inject({ url: '/readyz' })).json();
    assert.equal(ready.checks['ip-data'].state, 'ready');
    assert.match(ready.checks['ip-data'].detail, /GeoIP2-City \(.*GeoIP2-City-Test\.mmdb\)/);
    assert.match(ready.checks['ip-data'].detail, /security feeds: tor, vpn/);
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const operation = doc.paths['/api/v1/json'].get;
    const schema = operation.responses['200'].content['application/json'].schema;
    assert.deepEqual(schema.required, ['ip', 'security']);
    assert.ok(schema.properties.type.description.includes('first rule that applies'));
    assert.ok(schema.properties.class.description.includes('A 0-127'));
    assert.ok(schema.properties.ip.description.includes('IPv6 client'));
    assert.ok(operation.responses['200'].headers['X-Data-Attribution']);
  });
});

describe('GET /api/v1/json with the embedded default data only', () => {
  it('answers from GeoLite2 City and the ASN compilation; no feeds, so only bogon among the indicators', async () => {
    const app = await buildTestApp({ TRUST_PROXY: 'loopback', HOSTNAME_TIMEOUT_MS: '0' });
    try {
      const response = await app.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': '8.8.8.8' } });
      const body = response.json() as Json;
      assertSpecTypes(body);
      assert.equal((body.location as Json).countryCode, 'US');
      assert.deepEqual(body.network, { provider: 'Google LLC', asn: 'AS15169', route: '8.8.8.0/24' });
      assert.equal(body.class, 'A');
      assert.match(
        String(response.headers['x-data-attribution']),
        /GeoLite2 data created by MaxMind.*DB-IP.*RouteViews/,
      );
      assert.equal(response.headers['access-control-expose-headers'], '*', 'X-Data-Attribution readable by scripts');
      assert.deepEqual(body.security, { bogon: false, sources: [] });
    } finally {
      await app.close();
    }
  });
});
