import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { ipDataPaths } from '../../src/ipinfo/data/data-files.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { createIpDataStoreFromConfig } from '../../src/ipinfo/services.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import type { UpdatePlan } from '../../src/ipinfo/updater/update-plan.ts';
import { buildTestApp } from '../support/app.ts';
import { startLiveDataApp } from '../support/live-data-app.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';
import { feedDir, feedSkip, mmdb } from '../support/mmdb-fixtures.ts';

const skip = feedSkip;
const quiet = { info() {}, warn() {}, error() {} };
const PROBE = '216.160.83.56';

describe('new data is swapped into the running service, whole', { skip, timeout: 60_000 }, () => {
  let server: LocalHttpServer;
  let app: FastifyInstance;
  let store: IpDataStore;
  let dataDir: string;
  let base: string;
  const env = () => ({
    TRUST_PROXY: 'loopback',
    DATA_DIR: dataDir,
    HOSTNAME_TIMEOUT_MS: '0',
    RATE_LIMITS: 'public=1000000/1000000',
    // These tests run the updater themselves; the service's own refresh would race them for its lock.
    DATA_REFRESH_HOURS: '0',
  });

  before(async () => {
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'live-'));
    server = await startLocalHttpServer();
    ({ app, store, base } = await startLiveDataApp(env()));
  });
  after(async () => {
    // Each guarded: a before() that failed half-way must not leave a server keeping the process up.
    await server?.close();
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ask = async () => {
    const response = await fetch(`${base}/api/v1/json`, { headers: { 'x-forwarded-for': PROBE } });
    const body = await response.text();
    return `${response.headers.get('x-data-attribution')} ${body}`;
  };

  it('loading starts with listening; /readyz is 200 once loaded', async () => {
    const deadline = Date.now() + 10_000;
    let ready = await fetch(`${base}/readyz`);
    while (ready.status !== 200 && Date.now() < deadline) {
      await sleep(20);
      ready = await fetch(`${base}/readyz`);
    }
    assert.equal(ready.status, 200);
    assert.equal(store.current?.location?.databaseType, 'GeoLite2-City', 'the embedded default');
  });

  it('an update installed while requests run: every answer is all old or all new, never a mixture', async () => {
    const before = await ask();
    assert.match(before, /RouteViews/, 'the embedded ASN data');
    server.set('/city-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoIP2-City-Test')) });
    server.set('/asn-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-ASN-Test')) });
    server.set('/tor', { body: readFileSync(path.join(feedDir, 'tor-exit-nodes.lst')) });
    const off = {
      'vpn-ipv4': null,
      'vpn-ipv6': null,
      'vpn-asn': null,
      'datacenter-ipv4': null,
      'datacenter-ipv6': null,
      'datacenter-asn': null,
      proxy: null,
      rpki: null,
    };
    const plan: UpdatePlan = {
      dataDir,
      urls: {
        city: `${server.origin}/city-{month}.mmdb.gz`,
        asn: `${server.origin}/asn-{month}.mmdb.gz`,
        tor: `${server.origin}/tor`,
        ...off,
      },
      skip: {},
      licenseKey: null,
    };

    const seen = new Map<string, number>();
    let stop = false;
    const hammer = async () => {
      while (!stop) {
        const answer = await ask();
        seen.set(answer, (seen.get(answer) ?? 0) + 1);
      }
    };
    const workers = Array.from({ length: 8 }, hammer);
    await sleep(50);
    const reports = await runDataUpdate(plan, { now: () => new Date('2026-11-20T00:00:00Z') });
    assert.deepEqual(
      reports.filter((r) => r.outcome === 'updated').map((r) => r.id),
      ['city', 'asn', 'tor'],
    );
    const deadline = Date.now() + 5_000;
    let after = await ask();
    while (after === before && Date.now() < deadline) after = await ask();
    await sleep(50);
    stop = true;
    await Promise.all(workers);

    assert.notEqual(after, before, 'the new data arrived without a restart');
    assert.match(after, /"city":"Milton"/, 'GeoIP2-City-Test answers now');
    assert.match(after, /"network":\{"asn":"AS209","route":"216.160.64.0\/18"\}/, 'GeoLite2-ASN-Test answers now');
    assert.match(after, /"sources":\["tor-exit-list"\]/, 'and the Tor list is consulted');
    assert.deepEqual(
      [...seen.keys()].filter((answer) => answer !== before && answer !== after),
      [],
      'no answer mixed old and new data',
    );
    assert.ok((seen.get(before) ?? 0) > 0 && (seen.get(after) ?? 0) > 0, JSON.stringify([...seen.values()]));
  });

  it('a damaged file on disk: the next load falls back and readiness says why', async () => {
    const { downloads, manifest } = ipDataPaths(dataDir);
    writeFileSync(path.join(downloads, 'city.mmdb'), 'not a database');
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')} `); // what an update run does last
    const deadline = Date.now() + 5_000;
    while (store.current?.location?.databaseType !== 'GeoLite2-City' && Date.now() < deadline) await sleep(20);
    assert.equal(store.current?.location?.databaseType, 'GeoLite2-City', 'back on the embedded City data');
    const ready = (await (await fetch(`${base}/readyz`)).json()) as {
      status: string;
      checks: Record<string, { detail: string }>;
    };
    assert.equal(ready.status, 'degraded');
    assert.match(ready.checks['ip-data']?.detail ?? '', /City data: downloaded city\.mmdb: .*; using GeoLite2-City/);
  });
});

describe('DATA_REFRESH_HOURS: the service runs the update itself', { skip, timeout: 60_000 }, () => {
  it('at startup when no update ever ran, then swaps the new data in', async () => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-'));
    const server = await startLocalHttpServer();
    server.set('/city-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-City-Test')) });
    server.set('/city-2026-10.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-City-Test')) });
    server.set('/tor', { body: readFileSync(path.join(feedDir, 'tor-exit-nodes.lst')) });
    const env = {
      DATA_DIR: dataDir,
      DATA_REFRESH_HOURS: '24',
      GEOIP_CITY_URL: `${server.origin}/city-{month}.mmdb.gz`,
      GEOIP_ASN_URL: `${server.origin}/missing-{month}.mmdb.gz`,
      FEED_TOR_URL: `${server.origin}/tor`,
      ...Object.fromEntries(
        ['VPN_IPV4', 'VPN_IPV6', 'VPN_ASN', 'DATACENTER_IPV4', 'DATACENTER_IPV6', 'DATACENTER_ASN'].map((name) => [
          `FEED_${name}_URL`,
          'off',
        ]),
      ),
    };
    const store = createIpDataStoreFromConfig(loadConfig({ ...env, DNS_SERVERS: '127.0.0.1:9' }), quiet, {
      watchIntervalMs: 20,
      embeddedCacheDir: path.resolve('.tmp/test-data/ipinfo/embedded'),
    });
    const app = await buildTestApp(env, { ipData: store });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const deadline = Date.now() + 10_000;
      while (store.current?.location?.databaseType !== 'GeoLite2-City' || store.current.feedsLoaded.size === 0) {
        if (Date.now() > deadline) break;
        await sleep(20);
      }
      assert.equal(
        store.current?.feedsLoaded.has('tor'),
        true,
        'the Tor list arrived without anyone running data:update',
      );
      const manifest = JSON.parse(readFileSync(ipDataPaths(dataDir).manifest, 'utf8'));
      assert.match(manifest.sources.city.url, /city-20\d\d-\d\d\.mmdb\.gz$/);
      assert.match(manifest.failures.asn.reason, /not published: HTTP 404/);
    } finally {
      await app.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a refresh still downloading when the service closes is stopped with it', async () => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-'));
    let asked = 0;
    // A server that takes the request and never answers: the update child waits on it.
    const stalled = createServer(() => {
      asked++;
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
    const env = {
      DATA_DIR: dataDir,
      DATA_REFRESH_HOURS: '24',
      GEOIP_CITY_URL: `${origin}/city.mmdb.gz`,
      GEOIP_ASN_URL: `${origin}/asn.mmdb.gz`,
      ...Object.fromEntries(
        ['TOR', 'VPN_IPV4', 'VPN_IPV6', 'VPN_ASN', 'DATACENTER_IPV4', 'DATACENTER_IPV6', 'DATACENTER_ASN'].map(
          (name) => [`FEED_${name}_URL`, 'off'],
        ),
      ),
    };
    const store = createIpDataStoreFromConfig(loadConfig({ ...env, DNS_SERVERS: '127.0.0.1:9' }), quiet, {
      embeddedCacheDir: path.resolve('.tmp/test-data/ipinfo/embedded'),
    });
    const app = await buildTestApp(env, { ipData: store });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      for (let i = 0; i < 500 && asked === 0; i++) await sleep(20);
      assert.equal(asked, 1, 'the update child is downloading');
      const { pid } = JSON.parse(readFileSync(ipDataPaths(dataDir).lock, 'utf8')) as { pid: number };
      assert.notEqual(pid, process.pid, 'the lock is the child’s');
      await app.close();
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20);
      assert.equal(isAlive(pid), false, 'the child ended with the service');
    } finally {
      await app.close();
      stalled.closeAllConnections();
      stalled.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
