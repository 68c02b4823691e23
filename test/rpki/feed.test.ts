import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { vrpSetAge } from '../../src/ipinfo/answers/ip-answers.ts';
import { ipDataPaths, SOURCES, type SourceId } from '../../src/ipinfo/data/data-files.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { createIpDataStoreFromConfig } from '../../src/ipinfo/services.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { rpkiOnlyPlan, type UpdatePlan, updatePlanFromConfig } from '../../src/ipinfo/updater/update-plan.ts';
import { freePort } from '../support/free-port.ts';
import { startLiveDataApp } from '../support/live-data-app.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';

const quiet = { info() {}, warn() {}, error() {} };
// Two hours before the test runs, in whole seconds as the exports write it: a set younger than a day is fresh.
const GENERATED = Math.floor(Date.now() / 1000 - 7200) * 1000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

type Roa = [prefix: string, maxLength: number | undefined, asn: number];

/** rpki-client's vrps.json: `asn` a number, `generated` in seconds. */
const rpkiClientJson = (roas: Roa[], generated = GENERATED) =>
  JSON.stringify({
    metadata: { buildmachine: 'test', generated: generated / 1000, roas: roas.length },
    roas: roas.map(([prefix, maxLength, asn]) => ({
      asn,
      prefix,
      ...(maxLength === undefined ? {} : { maxLength }),
      ta: 'test',
      expires: generated / 1000 + 86_400,
    })),
  });

/** Routinator's `-f json` (and Cloudflare's): `asn` as `"AS123"`, `generatedTime` ISO 8601. */
const routinatorJson = (roas: Roa[], generated = GENERATED) =>
  JSON.stringify({
    metadata: { generated: generated / 1000, generatedTime: new Date(generated).toISOString() },
    roas: roas.map(([prefix, maxLength, asn]) => ({ asn: `AS${asn}`, prefix, maxLength, ta: 'test' })),
  });

/** Filler VRPs in 100.64.0.0/10's neighbour space, so that a set has a size the shrink check can compare. */
const filler = (count: number): Roa[] =>
  Array.from({ length: count }, (_, i) => [`45.${(i >> 8) & 255}.${i & 255}.0/24`, 24, 64_512 + (i % 100)]);

const CLOUDFLARE: Roa[] = [
  ['1.1.1.0/24', 24, 13335],
  ['2606:4700::/32', 48, 13335],
  ['8.8.8.0/24', 24, 15169],
];

describe('the RPKI VRP set: fetched, verified, installed, swapped in without a restart', { timeout: 120_000 }, () => {
  let server: LocalHttpServer;
  let app: FastifyInstance;
  let store: IpDataStore;
  let dataDir: string;
  let base: string;
  let metricsPort: number;
  const env = () => ({
    DATA_DIR: dataDir,
    HOSTNAME_TIMEOUT_MS: '0',
    RATE_LIMITS: 'public=1000000/1000000',
    DATA_REFRESH_HOURS: '0',
    RPKI_REFRESH_MINUTES: '0',
    FEED_RPKI_URL: `${server.origin}/vrps.json`,
    METRICS_PORT: String(metricsPort),
  });
  const plan = (): UpdatePlan => rpkiOnlyPlan(updatePlanFromConfig(loadConfig(env())));
  const update = async () => (await runDataUpdate(plan())).find((report) => report.id === 'rpki');
  const json = async (url: string) => {
    const response = await fetch(`${base}${url}`);
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below
    return { status: response.status, body: (await response.json()) as any };
  };
  const waitForSet = async (size: number, generatedAt: number) => {
    const swapped = () => store.current?.rpki?.size === size && store.current.rpki.generatedAt === generatedAt;
    for (let i = 0; i < 250 && !swapped(); i++) await sleep(20);
    assert.ok(swapped(), 'the new set is in use');
  };

  before(async () => {
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'rpki-'));
    server = await startLocalHttpServer();
    metricsPort = await freePort();
    ({ app, store, base } = await startLiveDataApp(env()));
  });
  after(async () => {
    await server?.close();
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('before any set is installed: /rpki is a 503 saying so, and /json has no network.rpki', async () => {
    await store.loaded();
    const rpki = await json('/api/v1/rpki?prefix=1.1.1.0/24&asn=AS13335');
    assert.equal(rpki.status, 503);
    assert.match(rpki.body.error, /No RPKI VRP set is loaded/);
    const answer = await json('/api/v1/json/1.1.1.1');
    assert.equal(answer.body.network.asn, 'AS13335');
    assert.equal('rpki' in answer.body.network, false);
  });

  it("rpki-client's export (asn a number): installed, and every answer validates against it", async () => {
    server.set('/vrps.json', { body: rpkiClientJson([...CLOUDFLARE, ...filler(1000)]) });
    const report = await update();
    assert.equal(report?.outcome, 'updated', report?.detail);
    assert.match(report?.detail ?? '', new RegExp(`1003 entries, generated ${new Date(GENERATED).toISOString()}`));
    await waitForSet(1003, GENERATED);

    const valid = await json('/api/v1/rpki?prefix=1.1.1.0/24&asn=AS13335');
    assert.equal(valid.status, 200);
    assert.deepEqual(valid.body, {
      validated_route: {
        route: { origin_asn: 'AS13335', prefix: '1.1.1.0/24' },
        validity: {
          state: 'valid',
          description: 'At least one VRP Matches the Route Prefix',
          VRPs: {
            matched: [{ asn: 'AS13335', prefix: '1.1.1.0/24', max_length: '24' }],
            unmatched_as: [],
            unmatched_length: [],
          },
        },
      },
      generatedTime: iso(GENERATED),
    });
    const hijack = await json('/api/v1/rpki?prefix=1.1.1.0/25&asn=64496');
    assert.equal(hijack.body.validated_route.validity.state, 'invalid');
    assert.equal(hijack.body.validated_route.validity.reason, 'as');
    const v6 = await json('/api/v1/rpki?prefix=2606:4700:4700::/48&asn=as13335');
    assert.equal(v6.body.validated_route.validity.state, 'valid');

    const ip = await json('/api/v1/json/1.1.1.1');
    assert.deepEqual(ip.body.network.rpki, {
      status: 'valid',
      vrps: [{ prefix: '1.1.1.0/24', maxLength: 24, asn: 'AS13335' }],
    });
    const ipv6 = await json('/api/v1/json/2606:4700:4700::1111');
    assert.deepEqual(ipv6.body.network.rpki, {
      status: 'valid',
      vrps: [{ prefix: '2606:4700::/32', maxLength: 48, asn: 'AS13335' }],
    });
    // 9.9.9.0/24 (Quad9) has no VRP in this set.
    assert.deepEqual((await json('/api/v1/json/9.9.9.9')).body.network.rpki, { status: 'not-found', vrps: [] });
    const picked = await json('/api/v1/json/8.8.8.8?fields=network.rpki.status');
    assert.deepEqual(picked.body, { network: { rpki: { status: 'valid' } } });

    const batch = await fetch(`${base}/api/v1/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(['1.1.1.1', 'AS13335']),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field below
    const items = (await batch.json()) as any;
    assert.equal(items['1.1.1.1']?.network.rpki.status, 'valid');
    assert.equal(items.AS13335?.rpki.summary.valid > 0, true, JSON.stringify(items.AS13335?.rpki?.summary));
  });

  it('/asn/{asn}: each prefix validated as originated by the AS, with the counts', async () => {
    const { body } = await json('/api/v1/asn/AS13335');
    const statuses = new Map(
      body.rpki.prefixes.map((entry: { prefix: string; status: string }) => [entry.prefix, entry.status]),
    );
    assert.equal(statuses.get('1.1.1.0/24'), 'valid');
    assert.equal(body.rpki.prefixes.length, body.prefixCount.ipv4 + body.prefixCount.ipv6);
    const { valid, invalid, notFound } = body.rpki.summary;
    assert.equal(valid + invalid + notFound, body.rpki.prefixes.length);
    assert.ok(body.sources.includes('rpki'));
  });

  it('/readyz gives the set and its age; the metrics its age and size', async () => {
    const ready = await json('/readyz');
    const detail = ready.body.checks['ip-data'].detail as string;
    assert.match(detail, /rpki: 1003 VRPs \(http:\/\/127\.0\.0\.1:\d+\/vrps\.json\)/);
    assert.match(detail, /rpki generated \d+ (min|h|d) ago/);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /netinfo_data_entries\{source="rpki"\} 1003\n/);
    const age = Number(/netinfo_data_age_seconds\{source="rpki"\} ([\d.e+-]+)/.exec(metrics)?.[1]);
    assert.ok(Math.abs(age - (Date.now() - GENERATED) / 1000) < 60, `the age is the validator's: ${age}`);
  });

  it('refused, keeping the set in use: a download cut short, an HTML page, a set shrunk by half, malformed entries', async () => {
    const good = rpkiClientJson([...CLOUDFLARE, ...filler(1000)]);
    const refusals: [string, string | Buffer, RegExp][] = [
      ['cut short', good.slice(0, Math.floor(good.length * 0.7)), /not complete JSON .*a download cut short/],
      ['cut short, gzipped', gzipSync(good).subarray(0, 2000), /unexpected end of file|gzip/i],
      ['an HTML page', '<!DOCTYPE html><html><body>502 Bad Gateway</body></html>', /an HTML or XML page/],
      ['a JSON error', '{"error": "rate limited"}', /without a "roas" array/],
      ['shrunk', rpkiClientJson(CLOUDFLARE), /3 VRPs, less than half of the installed copy's 1003/],
      [
        'malformed',
        rpkiClientJson([
          ...CLOUDFLARE,
          ...filler(900),
          ...Array.from({ length: 20 }, (): Roa => ['1.2.3.4/24', 24, 1]),
        ]),
        /20 of 923 entries are not VRPs, e\.g\. entry 903: prefix 1\.2\.3\.4\/24: host bits set/,
      ],
    ];
    for (const [what, body, reason] of refusals) {
      server.set('/vrps.json', { body });
      const report = await update();
      assert.equal(report?.outcome, 'failed', what);
      assert.match(report?.detail ?? '', reason, what);
      assert.match(report?.detail ?? '', /kept the copy installed/, what);
    }
    await sleep(100);
    assert.equal(store.current?.rpki?.size, 1003, 'still the set installed first');
    assert.equal((await json('/api/v1/json/1.1.1.1')).body.network.rpki.status, 'valid');
  });

  it('Routinator\'s export (asn "AS123", generatedTime): swapped in without a restart', async () => {
    const later = GENERATED + 3_600_000;
    // 1.1.1.0/24 now authorised for another AS only, 8.8.8.0/24 only up to /23 (so invalid by length).
    const roas: Roa[] = [
      ['1.1.1.0/24', 24, 64496],
      ['8.8.0.0/16', 23, 15169],
      ['2606:4700::/32', 48, 13335],
      ...filler(1000),
    ];
    server.set('/vrps.json', { body: routinatorJson(roas, later) });
    const report = await update();
    assert.equal(report?.outcome, 'updated', report?.detail);
    await waitForSet(1003, later);
    assert.deepEqual((await json('/api/v1/json/1.1.1.1')).body.network.rpki, {
      status: 'invalid',
      reason: 'asn',
      vrps: [{ prefix: '1.1.1.0/24', maxLength: 24, asn: 'AS64496' }],
    });
    assert.deepEqual((await json('/api/v1/json/8.8.8.8')).body.network.rpki, {
      status: 'invalid',
      reason: 'length',
      vrps: [{ prefix: '8.8.0.0/16', maxLength: 23, asn: 'AS15169' }],
    });
    const rpki = await json('/api/v1/rpki?prefix=8.8.8.0/24&asn=15169');
    assert.equal(rpki.body.validated_route.validity.reason, 'length');
    assert.equal(rpki.body.generatedTime, iso(later));
  });

  it('bad input: 400 naming the parameter', async () => {
    const cases: [string, RegExp][] = [
      ['prefix=1.1.1.0&asn=13335', /'prefix'.*no prefix length/],
      ['prefix=1.1.1.1/24&asn=13335', /'prefix'.*host bits set/],
      ['prefix=1.1.1.0/33&asn=13335', /'prefix'.*prefix length over 32/],
      ['prefix=example.com/24&asn=13335', /'prefix'.*not an IP address/],
      ['prefix=1.1.1.0/24&asn=4294967296', /'asn'.*from 0 to 4294967295/],
      ['prefix=1.1.1.0/24&asn=AS-13335', /'asn'/],
      ['prefix=1.1.1.0/24', /asn/],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await json(`/api/v1/rpki?${query}`);
      assert.equal(status, 400, query);
      assert.match(body.error, message, query);
    }
  });
});

describe('RPKI_VRP_FILE and FEED_RPKI_URL=off', () => {
  it("the operator's own validator's file is read and installed like a download, and unchanged content is left", async (t) => {
    mkdirSync('.tmp', { recursive: true });
    const dataDir = mkdtempSync(path.resolve('.tmp', 'rpki-file-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const file = path.join(dataDir, 'validator-output.json');
    writeFileSync(file, rpkiClientJson(CLOUDFLARE));
    const config = loadConfig({ DATA_DIR: dataDir, RPKI_VRP_FILE: file });
    const plan = rpkiOnlyPlan(updatePlanFromConfig(config));
    assert.equal(plan.urls.rpki, `file://${file}`);
    const first = (await runDataUpdate(plan)).find((report) => report.id === 'rpki');
    assert.equal(first?.outcome, 'updated', first?.detail);
    const again = (await runDataUpdate(plan)).find((report) => report.id === 'rpki');
    assert.equal(again?.outcome, 'unchanged');
    const skipped = (await runDataUpdate(plan)).filter((report) => report.outcome === 'skipped').map((r) => r.id);
    assert.deepEqual(
      skipped.sort(),
      SOURCES.map((source) => source.id)
        .filter((id: SourceId) => id !== 'rpki')
        .sort(),
    );

    const store = createIpDataStoreFromConfig(config, quiet, {
      embeddedCacheDir: path.resolve('.tmp/test-data/ipinfo/embedded'),
    });
    t.after(() => store.close());
    const data = await store.loaded();
    assert.equal(data.rpki?.size, 3);
    assert.equal(data.sources.find((source) => source.source === 'rpki')?.origin, 'operator');
    assert.equal(store.readinessCheck().state, 'ready');
    assert.equal((await vrpSetAge(store, Date.now()))?.stale, false);

    // A set a validator generated 30 hours ago: still used, and /readyz says it is stale.
    writeFileSync(file, rpkiClientJson([...CLOUDFLARE, ['9.9.9.0/24', 24, 19281]], GENERATED - 28 * 3_600_000));
    assert.equal((await runDataUpdate(plan)).find((report) => report.id === 'rpki')?.outcome, 'updated');
    await store.reload('test');
    assert.equal(store.current?.rpki?.size, 4);
    const stale = store.readinessCheck();
    assert.equal(stale.state, 'degraded');
    assert.match(stale.detail ?? '', /the RPKI VRP set was generated 30 h ago, over a day: its refresh is failing/);
    assert.equal((await vrpSetAge(store, Date.now()))?.stale, true, 'the pages are told too');

    assert.throws(
      () => loadConfig({ RPKI_VRP_FILE: path.join(dataDir, 'missing.json') }),
      /RPKI_VRP_FILE: cannot read .*ENOENT/,
    );

    // Turned off: the copy installed earlier is not used.
    const off = createIpDataStoreFromConfig(loadConfig({ DATA_DIR: dataDir, FEED_RPKI_URL: 'off' }), quiet, {
      embeddedCacheDir: path.resolve('.tmp/test-data/ipinfo/embedded'),
    });
    t.after(() => off.close());
    assert.equal((await off.loaded()).rpki, undefined);
    assert.ok(readFileSync(path.join(ipDataPaths(dataDir).downloads, 'rpki-vrps.bin')).length > 0);
  });
});
