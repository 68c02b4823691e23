import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import type { FastifyInstance } from 'fastify';
import { formatServer } from '../../src/dns/servers.ts';
import { IP_FIELD_NAMES } from '../../src/ipinfo/json-answer.ts';
import { buildTestApp } from '../support/app.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';
import { mmdbPath } from '../support/mmdb-fixtures.ts';

const PTR: Answer[] = [
  { type: 'PTR', name: '142.69.2.81.in-addr.arpa', ttl: 3600, class: 'IN', data: 'london-gw.isp.test' },
];

describe('GET /api/v1/json/{ip}: what /api/v1/json answers a client at that address', { timeout: 60_000 }, () => {
  let dns: FakeDnsServer;
  // Two apps with the same data, so an answer about an address is made afresh by each route (one
  // app shares one answer cache between the routes, which would hide a difference).
  let byPath: FastifyInstance;
  let byClient: FastifyInstance;

  before(async () => {
    dns = await startFakeDnsServer(recordsHandler(PTR, 'in-addr.arpa'));
    const env = {
      TRUST_PROXY: 'loopback',
      DNS_SERVERS: formatServer(dns.server),
      HOSTNAME_TIMEOUT_MS: '300',
      GEOIP_CITY_DB: mmdbPath('GeoIP2-City-Test'),
      GEOIP_ASN_DB: mmdbPath('GeoIP2-ISP-Test'),
      GEOIP_ANONYMOUS_DB: mmdbPath('GeoIP2-Anonymous-IP-Test'),
      GEOIP_CONNECTION_TYPE_DB: mmdbPath('GeoIP2-Connection-Type-Test'),
    };
    byPath = await buildTestApp(env);
    byClient = await buildTestApp(env);
  });
  after(async () => {
    await byPath?.close();
    await byClient?.close();
    await dns?.close();
  });

  const path = (url: string) => byPath.inject({ url });

  it('equals /api/v1/json seen from the address, body and headers, for every kind of address', async () => {
    for (const ip of [
      '81.2.69.142',
      '216.160.83.56',
      '2001:480:3a::1',
      '2001:218::1',
      '1.128.0.1',
      '192.168.10.20',
      '10.0.0.1',
    ]) {
      const asked = await path(`/api/v1/json/${ip}`);
      const seen = await byClient.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': ip } });
      assert.equal(asked.statusCode, 200, asked.body);
      assert.equal(asked.body, seen.body, ip);
      for (const header of ['content-type', 'cache-control', 'x-data-attribution']) {
        assert.equal(asked.headers[header], seen.headers[header], `${ip} ${header}`);
      }
    }
    const london = (await path('/api/v1/json/81.2.69.142')).json();
    assert.equal(london.hostname, 'london-gw.isp.test', 'the reverse name through the resolver');
    assert.equal(london.location.city, 'London');
    const v6 = (await path('/api/v1/json/2001:480:3a::1')).json();
    assert.equal(v6.ipv6, '2001:480:3a::1');
  });

  it('the same as a client: an IPv6 address in another spelling is answered in its normal form', async () => {
    const asked = await path('/api/v1/json/2001:0480:003A:0:0:0:0:1');
    const seen = await byClient.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': '2001:0480:003A::1' } });
    assert.equal(asked.json().ip, '2001:480:3a::1');
    assert.equal(asked.body, seen.body);
  });

  it('an IPv4-mapped address: the answer about the IPv4 address, with mappedFrom saying so', async () => {
    const mapped = (await path('/api/v1/json/::ffff:81.2.69.142')).json();
    const plain = (
      await byClient.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': '81.2.69.142' } })
    ).json();
    assert.deepEqual(mapped, { ...plain, mappedFrom: '::ffff:81.2.69.142' });
    assert.equal(mapped.ip, '81.2.69.142');
    assert.equal('ipv6' in mapped, false);
  });

  it('fields keeps only the named parts, here and on /api/v1/json', async () => {
    const picked = await path('/api/v1/json/81.2.69.142?fields=ip,location.countryCode,network.asn,hostname');
    assert.deepEqual(picked.json(), {
      ip: '81.2.69.142',
      hostname: 'london-gw.isp.test',
      location: { countryCode: 'GB' },
    });
    assert.equal(picked.headers['content-type'], 'application/json; charset=utf-8');
    const own = await byClient.inject({
      url: '/api/v1/json?fields=security.bogon,class',
      headers: { 'x-forwarded-for': '192.168.10.20' },
    });
    assert.deepEqual(own.json(), { class: 'C', security: { bogon: true } });
    const mapped = await path('/api/v1/json/::ffff:10.0.0.1?fields=mappedFrom,ip');
    assert.deepEqual(mapped.json(), { ip: '10.0.0.1', mappedFrom: '::ffff:10.0.0.1' });
  });

  it('a name no answer has: 400 listing the valid names', async () => {
    for (const url of ['/api/v1/json/8.8.8.8?fields=ip,location.town', '/api/v1/json?fields=ip,cty']) {
      const response = await path(url);
      assert.equal(response.statusCode, 400, url);
      assert.match(response.json().error, /Invalid query parameter 'fields': no answer has '(location\.town|cty)'/);
      for (const name of IP_FIELD_NAMES) assert.ok(response.json().error.includes(name), name);
    }
    const empty = await path('/api/v1/json/8.8.8.8?fields=,');
    assert.equal(empty.statusCode, 400);
    assert.match(empty.json().error, /name at least one field/);
  });

  it('bad addresses: a 400 naming the path parameter and why, never a 500', async () => {
    const cases: [string, RegExp][] = [
      ['010.1.1.1', /leading zeros are refused/],
      ['fe80::1%25eth0', /zone index/],
      ['localhost', /not an IPv4 address/],
      ['8.8.8.8%2F24', /not an IPv4 address/], // percent-encoded slash: decoded, then refused
      ['%38.8.8.8', /./], // percent-encoded digit: decodes to 8.8.8.8, which is fine
      ['1'.repeat(60), /longer than 45 characters/],
      ['1'.repeat(150), /longer than 100 characters; expected an IPv4 address/], // the router's own limit
    ];
    for (const [param, message] of cases) {
      const response = await path(`/api/v1/json/${param}`);
      if (param === '%38.8.8.8') {
        assert.equal(response.statusCode, 200, param);
        assert.equal(response.json().ip, '8.8.8.8');
        continue;
      }
      assert.equal(response.statusCode, 400, `${param}: ${response.body}`);
      assert.match(response.json().error, /^Invalid path parameter 'ip': /, param);
      assert.match(response.json().error, message, param);
    }
    for (const param of ['%zz', '%C0%AE']) {
      const response = await path(`/api/v1/json/${param}`);
      assert.equal(response.statusCode, 400, `${param}: a malformed escape or invalid UTF-8 is the bad-URL 400`);
      assert.match(response.json().error, /URL is not valid/);
    }
  });

  it('OpenAPI documents the operation, its parameter, fields and mappedFrom', async () => {
    const doc = (await path('/api/v1/openapi.json')).json();
    const operation = doc.paths['/api/v1/json/{ip}'].get;
    assert.match(operation.description, /leading zeros/);
    assert.deepEqual(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort(), [
      'path:ip',
      'query:fields',
    ]);
    const schema = operation.responses['200'].content['application/json'].schema;
    assert.match(schema.properties.mappedFrom.description, /IPv4-mapped/);
    assert.ok(doc.paths['/api/v1/json'].get.parameters.some((p: { name: string }) => p.name === 'fields'));
  });
});
