import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ipDataPaths, readManifest, SOURCES, type SourceId } from '../../src/ipinfo/data/data-files.ts';
import { loadIpData } from '../../src/ipinfo/data/ip-data.ts';
import { hideLicenseKey, redactUrl } from '../../src/ipinfo/updater/download.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { candidateUrls, checksumUrlFor } from '../../src/ipinfo/updater/source-urls.ts';
import type { UpdatePlan } from '../../src/ipinfo/updater/update-plan.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';
import { FEED_FILES, feedDir, feedSkip, mmdb } from '../support/mmdb-fixtures.ts';

const skipReason = feedSkip;
const NOW = new Date('2026-11-05T12:00:00Z');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const feed = (name: string) => readFileSync(path.join(feedDir, name));

function planFor(server: LocalHttpServer, dataDir: string, overrides: Partial<UpdatePlan> = {}): UpdatePlan {
  const urls = {
    city: `${server.origin}/dbip-city-lite-{month}.mmdb.gz`,
    asn: `${server.origin}/dbip-asn-lite-{month}.mmdb.gz`,
  } as Record<SourceId, string | null>;
  for (const id of [...Object.keys(FEED_FILES), 'proxy'] as SourceId[]) urls[id] = `${server.origin}/feeds/${id}.txt`;
  urls.rpki = `${server.origin}/vrps.json`;
  return { dataDir, urls, skip: {}, licenseKey: null, ...overrides };
}

function serveGoodData(server: LocalHttpServer): void {
  // DB-IP has not published November yet: the updater falls back to October.
  server.set('/dbip-city-lite-2026-11.mmdb.gz', { status: 404 });
  server.set('/dbip-city-lite-2026-10.mmdb.gz', { body: gzipSync(mmdb('GeoIP2-City-Test')) });
  server.set('/dbip-asn-lite-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-ASN-Test')) });
  for (const [id, file] of Object.entries(FEED_FILES)) {
    server.set(`/feeds/${id}.txt`, { body: feed(file), headers: { etag: `"${id}-v1"` } });
  }
  server.set('/feeds/proxy.txt', { body: PROXY_NETSET, headers: { etag: '"proxy-v1"' } });
  server.set('/vrps.json', { body: gzipSync(VRPS), headers: { etag: '"vrps-v1"' } });
}

/** rpki-client's vrps.json, gzipped as a mirror may serve it. */
const VRPS = JSON.stringify({
  metadata: { generated: Date.parse('2026-11-05T11:00:00Z') / 1000 },
  roas: [
    { asn: 13335, prefix: '1.1.1.0/24', maxLength: 24, ta: 'apnic' },
    { asn: 15169, prefix: '2001:4860::/32', maxLength: 48, ta: 'arin' },
  ],
});

/** In the format of FireHOL's firehol_proxies.netset: a comment header, then addresses and networks. */
const PROXY_NETSET = '#\n# firehol_proxies\n#\n81.2.69.142\n89.160.20.128/25\n';

describe('npm run data:update (runDataUpdate) against a local HTTP server', {
  skip: skipReason,
  timeout: 60_000,
}, () => {
  let server: LocalHttpServer;
  let dataDir: string;
  const update = (overrides: Partial<UpdatePlan> = {}) =>
    runDataUpdate(planFor(server, dataDir, overrides), { now: () => NOW });
  const installed = (file: string) => readFileSync(path.join(ipDataPaths(dataDir).downloads, file));

  before(async () => {
    server = await startLocalHttpServer();
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'update-'));
  });
  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('installs every source after verifying it, with the month fallback, and records it in the manifest', async () => {
    serveGoodData(server);
    const reports = await update();
    assert.deepEqual(
      reports.map((r) => [r.id, r.outcome]),
      Object.keys({ city: 1, asn: 1, ...FEED_FILES, proxy: 1, rpki: 1 }).map((id) => [id, 'updated']),
    );
    assert.deepEqual(installed('city.mmdb'), mmdb('GeoIP2-City-Test'), 'decompressed and installed byte for byte');
    assert.deepEqual(installed('asn.mmdb'), mmdb('GeoLite2-ASN-Test'));
    assert.deepEqual(installed('tor-exits.txt'), feed('tor-exit-nodes.lst'));
    const manifest = await readManifest(ipDataPaths(dataDir).manifest);
    assert.equal(manifest.sources.city?.url, `${server.origin}/dbip-city-lite-2026-10.mmdb.gz`);
    assert.equal(manifest.sources.city?.sha256, sha256(mmdb('GeoIP2-City-Test')));
    assert.equal(manifest.sources.city?.builtAt, '2026-02-04T22:49:29.000Z');
    assert.equal(manifest.sources['datacenter-ipv4']?.size, 42566);
    assert.equal(manifest.sources.tor?.etag, '"tor-v1"');
    assert.deepEqual(manifest.failures, {});
    assert.notEqual(manifest.generation, '');

    // The service's loader now prefers the downloads over the embedded data.
    const data = await loadIpData({
      dataDir,
      embeddedCacheDir: path.join(dataDir, 'unused'),
      geoipCityDb: null,
      geoipAsnDb: null,
      geoipAnonymousDb: null,
      geoipConnectionTypeDb: null,
    });
    assert.equal(data.location?.databaseType, 'GeoIP2-City');
    assert.equal(data.network?.databaseType, 'GeoLite2-ASN');
    assert.deepEqual(data.feeds.lookup('101.99.92.179'), { tor: true, vpn: false, hosting: false, proxy: false });
    assert.deepEqual(data.feeds.lookup('89.160.20.200'), { tor: false, vpn: false, hosting: false, proxy: true });
    assert.equal(manifest.sources.proxy?.size, 2, 'the open-proxy list, installed like the other feeds');
    assert.equal(manifest.sources.rpki?.builtAt, '2026-11-05T11:00:00.000Z', "the VRP set's own time");
    assert.equal(data.rpki?.size, 2, 'the VRP set, compiled and installed');
    assert.deepEqual(data.problems, []);

    // A feed turned off afterwards (FEED_TOR_URL=off) is not used, though its copy is still there.
    const withoutTor = await loadIpData({
      dataDir,
      embeddedCacheDir: path.join(dataDir, 'unused'),
      geoipCityDb: null,
      geoipAsnDb: null,
      geoipAnonymousDb: null,
      geoipConnectionTypeDb: null,
      feedsOff: ['tor'],
    });
    assert.equal(withoutTor.feedsLoaded.has('tor'), false);
    assert.deepEqual(withoutTor.feeds.coverage.tor, { ipv4: false, ipv6: false });
  });

  it('asks conditionally the next time; unchanged content is not reinstalled', async () => {
    const before = await readManifest(ipDataPaths(dataDir).manifest);
    server.requests.length = 0;
    const reports = await update();
    assert.ok(
      reports.every((r) => r.outcome === 'unchanged'),
      JSON.stringify(reports),
    );
    const torRequest = server.requests.find((r) => r.path === '/feeds/tor.txt');
    assert.equal(torRequest?.headers['if-none-match'], '"tor-v1"');
    const afterRun = await readManifest(ipDataPaths(dataDir).manifest);
    assert.equal(afterRun.generation, before.generation, 'nothing new: the service has nothing to reload');
    assert.equal(afterRun.sources.city?.installedAt, before.sources.city?.installedAt);
  });

  it('a failed download keeps the previous data and says why', async () => {
    const previous = await readManifest(ipDataPaths(dataDir).manifest);
    const cityBytes = installed('city.mmdb');
    const gz = gzipSync(mmdb('GeoLite2-ASN-Test'));
    server.set('/dbip-city-lite-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-ASN-Test')) });
    server.set('/dbip-asn-lite-2026-11.mmdb.gz', { body: gz.subarray(0, gz.length - 40) });
    server.set('/feeds/tor.txt', { body: '<!DOCTYPE html><html><body>Rate limited</body></html>' });
    server.set('/feeds/vpn-ipv4.txt', { status: 500, body: 'oops' });
    server.set('/feeds/vpn-ipv6.txt', { body: feed('x4bnet-vpn-ipv6.txt'), cutShort: true });
    server.set('/feeds/vpn-asn.txt', { body: 'AS9009\nthis is not an AS\nnor this\n' });
    server.set('/feeds/datacenter-ipv4.txt', { body: '1.12.0.0/14\n1.44.96.0/24\n' });
    // Cut inside a line, with a matching Content-Length: every line parses, the last one wrongly.
    const ipv6List = feed('x4bnet-datacenter-ipv6.txt').toString('utf8');
    server.set('/feeds/datacenter-ipv6.txt', { body: ipv6List.slice(0, ipv6List.indexOf('/', 40_000) + 2) });
    const manyAsns = Array.from({ length: 250_001 }, (_, i) => `AS${i + 1}\n`).join('');
    server.set('/feeds/datacenter-asn.txt', { body: manyAsns });
    const reports = await update();
    const byId = Object.fromEntries(reports.map((r) => [r.id, r]));
    const expectations: [SourceId, RegExp][] = [
      ['city', /expected a City or Country database, got database type 'GeoLite2-ASN'/],
      ['asn', /not a valid gzip file/],
      ['tor', /an HTML or XML page, not a list/],
      ['vpn-ipv4', /HTTP 500/],
      ['vpn-ipv6', /vpn-ipv6\.txt: /],
      ['vpn-asn', /2 malformed lines of 3, e\.g\. line 2 "this is not an AS": not an AS number/],
      ['datacenter-ipv4', /2 entries, less than half of the installed copy's 42566/],
      ['datacenter-ipv6', /the last line \(".*\/\d"\) has no line end: a download cut short/],
      ['datacenter-asn', /250001 entries, more than the 250000 a feed may have/],
    ];
    for (const [id, reason] of expectations) {
      assert.equal(byId[id]?.outcome, 'failed', `${id}: ${byId[id]?.detail}`);
      assert.match(byId[id]?.detail ?? '', reason, id);
      assert.match(byId[id]?.detail ?? '', /kept the copy installed 2026-11-05T12:00:00.000Z/, id);
    }
    assert.deepEqual(installed('city.mmdb'), cityBytes, 'the old City database is untouched');
    assert.deepEqual(installed('datacenter-ipv4.txt'), feed('x4bnet-datacenter-ipv4.txt'));
    const manifest = await readManifest(ipDataPaths(dataDir).manifest);
    assert.deepEqual(manifest.sources, previous.sources, 'what is installed did not change');
    assert.match(manifest.failures.tor?.reason ?? '', /HTML/);
    assert.equal(manifest.generation, previous.generation);

    // The next good run clears the failures.
    serveGoodData(server);
    server.set('/feeds/tor.txt', { body: `${feed('tor-exit-nodes.lst')}185.220.101.250\n` });
    const healed = await update();
    assert.equal(healed.find((r) => r.id === 'tor')?.outcome, 'updated');
    const after = await readManifest(ipDataPaths(dataDir).manifest);
    assert.deepEqual(after.failures, {});
    assert.notEqual(after.generation, previous.generation);
  });

  it('MaxMind GeoLite2 with a licence key: tar.gz, SHA-256 checked, the key never stored', async () => {
    const dir = mkdtempSync(path.resolve('.tmp', 'maxmind-'));
    try {
      const tarDir = path.join(dir, 'build');
      mkdirSync(path.join(tarDir, 'GeoLite2-City_20260203'), { recursive: true });
      writeFileSync(path.join(tarDir, 'GeoLite2-City_20260203', 'COPYRIGHT.txt'), 'MaxMind\n');
      writeFileSync(path.join(tarDir, 'GeoLite2-City_20260203', 'GeoLite2-City.mmdb'), mmdb('GeoLite2-City-Test'));
      const tarred = spawnSync('tar', ['-czf', path.join(dir, 'city.tar.gz'), '-C', tarDir, 'GeoLite2-City_20260203']);
      assert.equal(tarred.status, 0, String(tarred.stderr));
      const archive = readFileSync(path.join(dir, 'city.tar.gz'));
      const base = '/app/geoip_download?edition_id=GeoLite2-City&license_key=s3cret&suffix=tar.gz';
      server.set(base, { body: archive });
      server.set(`${base}.sha256`, { body: `${sha256(archive)}  GeoLite2-City_20260203.tar.gz\n` });
      const template = `${server.origin}/app/geoip_download?edition_id=GeoLite2-City&license_key={license_key}&suffix=tar.gz`;
      const plan = planFor(server, dir, { licenseKey: 's3cret' });
      const only = { ...Object.fromEntries(Object.keys(plan.urls).map((id) => [id, null])), city: template };
      const reports = await runDataUpdate({ ...plan, urls: only as UpdatePlan['urls'] }, { now: () => NOW });
      assert.equal(reports[0]?.outcome, 'updated', reports[0]?.detail);
      assert.deepEqual(readFileSync(path.join(ipDataPaths(dir).downloads, 'city.mmdb')), mmdb('GeoLite2-City-Test'));
      const manifestText = await readFile(ipDataPaths(dir).manifest, 'utf8');
      assert.equal(manifestText.includes('s3cret'), false, 'the licence key is not written down');
      assert.match(manifestText, /license_key=\*\*\*/);

      server.set(`${base}.sha256`, { body: `${'0'.repeat(64)}  GeoLite2-City_20260203.tar.gz\n` });
      server.set(base, { body: gzipSync(Buffer.concat([archive, Buffer.alloc(10)])) });
      const mismatch = await runDataUpdate({ ...plan, urls: only as UpdatePlan['urls'] }, { now: () => NOW });
      assert.equal(mismatch[0]?.outcome, 'failed');
      assert.match(mismatch[0]?.detail ?? '', /checksum mismatch/);
      assert.equal(mismatch[0]?.detail.includes('s3cret'), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a database download without the MaxMind metadata marker is refused before it is read whole', async () => {
    const dir = mkdtempSync(path.resolve('.tmp', 'garbage-'));
    try {
      server.set('/garbage.mmdb', { body: Buffer.alloc(300_000, 'not a database ') });
      const plan = planFor(server, dir);
      const urls = {
        ...Object.fromEntries(Object.keys(plan.urls).map((id) => [id, null])),
        city: `${server.origin}/garbage.mmdb`,
      } as UpdatePlan['urls'];
      const [city] = await runDataUpdate({ ...plan, urls }, { now: () => NOW });
      assert.equal(city?.outcome, 'failed');
      assert.match(city?.detail ?? '', /not a MaxMind-format database: no metadata section at its end/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /**
   * Updates City and ASN only, from the URLs given (City served, ASN failing with 500), in a
   * directory of its own; returns every text a secret could leak into: reports, log lines, manifest.
   */
  async function updateCityAndAsn(urls: { city: string; asn: string }, overrides: Partial<UpdatePlan> = {}) {
    const dir = mkdtempSync(path.resolve('.tmp', 'secret-'));
    try {
      const plan = planFor(server, dir, overrides);
      const only = {
        ...Object.fromEntries(Object.keys(plan.urls).map((id) => [id, null])),
        ...urls,
      } as UpdatePlan['urls'];
      const lines: string[] = [];
      const reports = await runDataUpdate({ ...plan, urls: only }, { now: () => NOW, log: (line) => lines.push(line) });
      assert.deepEqual(
        reports.filter((r) => r.outcome !== 'skipped').map((r) => r.outcome),
        ['updated', 'failed'],
      );
      const manifestText = await readFile(ipDataPaths(dir).manifest, 'utf8');
      return { reportsText: JSON.stringify(reports), logText: lines.join('\n'), manifestText };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('the licence key is masked wherever a URL carries it, in reports, log lines and the manifest', async () => {
    const key = 'K3y/With+Chars';
    const encoded = encodeURIComponent(key);
    server.set(`/key-city?key=${encoded}`, { body: gzipSync(mmdb('GeoIP2-City-Test')) });
    server.set(`/key-asn/${encoded}/asn.mmdb.gz`, { status: 500 });
    const texts = await updateCityAndAsn(
      {
        city: `${server.origin}/key-city?key={license_key}`,
        asn: `${server.origin}/key-asn/{license_key}/asn.mmdb.gz`,
      },
      { licenseKey: key },
    );
    for (const text of Object.values(texts)) assert.equal(text.includes(key) || text.includes(encoded), false, text);
    assert.match(texts.manifestText, /key-city\?key=\*\*\*/);
    assert.match(texts.reportsText, /key-asn\/\*\*\*\/asn\.mmdb\.gz: HTTP 500/);
  });

  it('credentials in a URL are sent as Basic authentication and never shown or stored', async () => {
    server.set('/auth-city.mmdb.gz', (request) =>
      request.headers.authorization === `Basic ${Buffer.from('123456:s3cret/pw').toString('base64')}`
        ? { body: gzipSync(mmdb('GeoIP2-City-Test')) }
        : { status: 401 },
    );
    server.set('/auth-asn.mmdb.gz', { status: 500 });
    const withUser = (file: string) => server.origin.replace('//', '//123456:s3cret%2Fpw@') + file;
    const texts = await updateCityAndAsn({ city: withUser('/auth-city.mmdb.gz'), asn: withUser('/auth-asn.mmdb.gz') });
    for (const text of Object.values(texts)) assert.equal(text.includes('s3cret'), false, text);
    assert.match(texts.manifestText, /\/\/123456:\*\*\*@127\.0\.0\.1/);
  });

  it('one update at a time: a live lock refuses, a dead owner’s or a stale lock is taken over', async () => {
    const { lock } = ipDataPaths(dataDir);
    await writeFile(lock, JSON.stringify({ pid: process.pid, startedAt: NOW.toISOString() }));
    await assert.rejects(update(), /another update is running \(pid \d+/);
    // A live pid in a lock older than any run can last is a reused pid, not a running update.
    const hoursAgo = new Date(NOW.getTime() - 3 * 3_600_000).toISOString();
    await writeFile(lock, JSON.stringify({ pid: process.pid, startedAt: hoursAgo }));
    assert.equal((await update()).length, SOURCES.length);
    const exited = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    await writeFile(lock, JSON.stringify({ pid: exited.pid, startedAt: NOW.toISOString() }));
    const reports = await update();
    assert.equal(reports.length, SOURCES.length);
    await assert.rejects(readFile(lock), /ENOENT/, 'released afterwards');
  });
});

describe('source URLs', () => {
  it('fills in the month (falling back to the previous one, across a year) and the licence key', () => {
    assert.deepEqual(candidateUrls('https://x.test/dbip-{month}.mmdb.gz', new Date('2027-01-02T00:00:00Z'), null), [
      'https://x.test/dbip-2027-01.mmdb.gz',
      'https://x.test/dbip-2026-12.mmdb.gz',
    ]);
    assert.deepEqual(candidateUrls('https://x.test/a?k={license_key}', NOW, 'a b&c'), ['https://x.test/a?k=a%20b%26c']);
  });
  it('MaxMind checksum companions, and keys redacted from anything shown', () => {
    assert.equal(
      checksumUrlFor('https://m.test/d?edition_id=E&suffix=tar.gz'),
      'https://m.test/d?edition_id=E&suffix=tar.gz.sha256',
    );
    assert.equal(checksumUrlFor('https://x.test/dbip-city-lite-2026-11.mmdb.gz'), null);
    assert.equal(
      redactUrl('https://m.test/d?license_key=abc&suffix=tar.gz'),
      'https://m.test/d?license_key=***&suffix=tar.gz',
    );
    assert.equal(
      hideLicenseKey('Failed to parse URL from https://m.test/a%20b/x?k=a b', 'a b'),
      'Failed to parse URL from https://m.test/***/x?k=***',
    );
    assert.equal(hideLicenseKey('nothing to hide', null), 'nothing to hide');
    assert.equal(redactUrl('https://acct:k3y@m.test/d'), 'https://acct:***@m.test/d');
  });
});
