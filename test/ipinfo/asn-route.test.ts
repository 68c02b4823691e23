import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { embeddedAsnRanges } from '../../src/ipinfo/data/embedded-data.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { parseCidr } from '../../src/net/cidr.ts';
import { buildTestApp } from '../support/app.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';
import { FEED_FILES, feedDir, feedFixturesPresent, mmdbPath } from '../support/mmdb-fixtures.ts';

describe('GET /api/v1/asn/{asn} with the embedded ASN data and the real ASN lists', {
  skip: feedFixturesPresent ? false : 'shared feed snapshots absent',
  timeout: 60_000,
}, () => {
  let app: FastifyInstance;
  let feeds: LocalHttpServer;
  let dataDir: string;

  before(async () => {
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'asn-route-'));
    feeds = await startLocalHttpServer();
    for (const [id, file] of Object.entries(FEED_FILES))
      feeds.set(`/${id}`, { body: readFileSync(path.join(feedDir, file)) });
    const urls = Object.fromEntries(Object.keys(FEED_FILES).map((id) => [id, `${feeds.origin}/${id}`]));
    await runDataUpdate({
      dataDir,
      urls: { city: null, asn: null, ...urls } as Parameters<typeof runDataUpdate>[0]['urls'],
      skip: {},
      licenseKey: null,
    });
    app = await buildTestApp({ DATA_DIR: dataDir });
  });
  after(async () => {
    await app?.close();
    await feeds?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("AS15169: name, sorted CIDRs that hold exactly the data's own ranges, counts, type and lists", async () => {
    const response = await app.inject({ url: '/api/v1/asn/AS15169' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.asn, 'AS15169');
    assert.equal(body.name, 'Google LLC');
    assert.equal('country' in body, false, 'the ASN data has no country: omitted, not guessed');
    assert.deepEqual(body.prefixCount, { ipv4: body.prefixes.ipv4.length, ipv6: body.prefixes.ipv6.length });
    assert.ok(body.prefixes.ipv4.includes('8.8.8.0/24'));
    assert.equal(body.type, 'hosting', "on X4BNet's datacenter ASN list");
    assert.deepEqual(body.security, { vpn: false, hosting: true });
    assert.deepEqual(body.sources, ['asn-data', 'vpn-asns', 'datacenter-asns']);

    // The data's own IPv4 ranges of AS15169, read from the rows directly.
    const { ranges } = await embeddedAsnRanges('data/ipinfo/embedded');
    const own: [number, number][] = [];
    for (let i = 0; i < ranges.rows.asn4.length; i++) {
      if (ranges.rows.asn4[i] === 15169) own.push([ranges.rows.first4[i] as number, ranges.rows.last4[i] as number]);
    }
    const cidrs = (body.prefixes.ipv4 as string[]).map((text) => {
      const parsed = parseCidr(text);
      assert.ok(parsed.ok && parsed.cidr.version === 4, text);
      return parsed.cidr;
    });
    let previousLast = -1;
    for (const cidr of cidrs) {
      assert.ok(cidr.first > previousLast, 'sorted, disjoint');
      previousLast = cidr.last;
      // Every prefix lies inside the AS's own ranges, merged.
      assert.ok(
        own.some(([first, last]) => first <= cidr.first && cidr.last <= last) ||
          own
            .filter(([first, last]) => first >= cidr.first && last <= cidr.last)
            .reduce((s, [f, l]) => s + l - f + 1, 0) ===
            cidr.last - cidr.first + 1,
        `${cidr.first} in AS15169's ranges`,
      );
    }
    const addresses = own.reduce((sum, [first, last]) => sum + last - first + 1, 0);
    assert.equal(body.ipv4Addresses, addresses);
    assert.equal(
      cidrs.reduce((sum, c) => sum + (c.last as number) - (c.first as number) + 1, 0),
      addresses,
    );
    // Merged where adjacent: no two prefixes that touch could be one CIDR.
    for (let k = 1; k < cidrs.length; k++) {
      const [a, b] = [cidrs[k - 1], cidrs[k]] as [NonNullable<(typeof cidrs)[0]>, NonNullable<(typeof cidrs)[0]>];
      const sameSize = a.last - a.first === b.last - b.first;
      const size = (a.last as number) - (a.first as number) + 1;
      const mergeable = sameSize && a.last + 1 === b.first && (a.first as number) % (2 * size) === 0;
      assert.ok(!mergeable, `${a.first} and ${b.first} should have been one prefix`);
    }
  });

  it('case-insensitive, with or without AS; 404 for an AS the data does not know; 400 for what is not an ASN', async () => {
    const [upper, lower, bare] = await Promise.all(
      ['AS13335', 'as13335', '13335'].map((asn) => app.inject({ url: `/api/v1/asn/${asn}` })),
    );
    assert.equal(upper?.statusCode, 200);
    assert.equal(lower?.body, upper?.body);
    assert.equal(bare?.body, upper?.body);
    const unknown = await app.inject({ url: '/api/v1/asn/AS4294967295' });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { error: 'The loaded ASN data has no prefixes of AS4294967295.' });
    for (const bad of ['AS', 'ASN15169', 'AS015169', '4294967296', 'AS-1', '1.2', `AS${'9'.repeat(150)}`]) {
      const response = await app.inject({ url: `/api/v1/asn/${bad}` });
      assert.equal(response.statusCode, 400, bad);
      assert.match(response.json().error, /^Invalid path parameter 'asn': /, bad);
    }
  });

  it('documented in OpenAPI', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const operation = doc.paths['/api/v1/asn/{asn}'].get;
    assert.match(operation.description, /once per\s+data load/);
    const schema = operation.responses['200'].content['application/json'].schema;
    assert.ok(schema.properties.prefixes && schema.properties.ipv4Addresses && schema.properties.sources);
    assert.ok(operation.responses['404'] && operation.responses['503']);
  });
});

describe('GET /api/v1/asn/{asn} with a MaxMind-format ASN database', () => {
  it("the prefixes come from the database's tree, as /json's network does", async () => {
    const app = await buildTestApp({ GEOIP_ASN_DB: mmdbPath('GeoLite2-ASN-Test'), TRUST_PROXY: 'loopback' });
    try {
      const response = await app.inject({ url: '/api/v1/asn/AS1221' });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().name, 'Telstra Pty Ltd');
      assert.ok(response.json().prefixes.ipv4.includes('1.128.0.0/11'));
      const json = await app.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': '1.128.0.1' } });
      assert.equal(json.json().network.asn, 'AS1221', 'the same data as /json');
    } finally {
      await app.close();
    }
  });
});

describe('GET /api/v1/asn/{asn} without ASN data', () => {
  it('503, not a 404 that would say the AS does not exist', async () => {
    const app = await buildTestApp(
      {},
      {
        ipData: {
          current: undefined,
          loaded: () => Promise.reject(new Error('no IP data in this test')),
          reload: async () => {},
          readinessCheck: () => ({ state: 'ready' }),
          async close() {},
        },
      },
    );
    try {
      const response = await app.inject({ url: '/api/v1/asn/AS15169' });
      assert.equal(response.statusCode, 503);
      assert.match(response.json().error, /No ASN data is loaded/);
    } finally {
      await app.close();
    }
  });
});
