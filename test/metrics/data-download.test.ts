import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { downloadOutcome } from '../../src/ipinfo/data-refresh.ts';
import { buildTestApp } from '../support/app.ts';
import { freePort } from '../support/free-port.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';
import { feedDir, feedSkip, mmdb } from '../support/mmdb-fixtures.ts';

test('downloadOutcome: unchanged counts as ok, skipped is not counted, a time limit is a timeout', () => {
  const report = (outcome: 'updated' | 'unchanged' | 'failed' | 'skipped', detail = '') =>
    downloadOutcome({ id: 'city', outcome, detail });
  assert.equal(report('updated'), 'ok');
  assert.equal(report('unchanged'), 'ok');
  assert.equal(report('skipped'), null);
  assert.equal(report('failed', 'http://127.0.0.1:1/x: no complete answer within 60000 ms; kept the copy'), 'timeout');
  assert.equal(report('failed', 'http://127.0.0.1:1/x: HTTP 404; kept the copy'), 'error');
});

test('the data refresh counts each source it downloads as upstream data_download', {
  skip: feedSkip,
  timeout: 60_000,
}, async (t) => {
  mkdirSync('.tmp', { recursive: true });
  const dataDir = mkdtempSync(path.resolve('.tmp', 'metrics-refresh-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startLocalHttpServer();
  t.after(() => server.close());
  server.set('/city-2026-11.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-City-Test')) });
  server.set('/city-2026-10.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-City-Test')) });
  server.set('/tor', { body: readFileSync(path.join(feedDir, 'tor-exit-nodes.lst')) });
  const metricsPort = await freePort();
  const app = await buildTestApp({
    METRICS_PORT: String(metricsPort),
    DATA_DIR: dataDir,
    DATA_REFRESH_HOURS: '24',
    GEOIP_CITY_URL: `${server.origin}/city-{month}.mmdb.gz`,
    // Not published: the ASN download fails.
    GEOIP_ASN_URL: `${server.origin}/missing-{month}.mmdb.gz`,
    FEED_TOR_URL: `${server.origin}/tor`,
    ...Object.fromEntries(
      ['VPN_IPV4', 'VPN_IPV6', 'VPN_ASN', 'DATACENTER_IPV4', 'DATACENTER_IPV6', 'DATACENTER_ASN', 'PROXY', 'RPKI'].map(
        (name) => [`FEED_${name}_URL`, 'off'],
      ),
    ),
  });
  t.after(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const series = (text: string, outcome: string) =>
    text
      .split('\n')
      .find((line) =>
        line.startsWith(`netinfo_upstream_requests_total{upstream="data_download",outcome="${outcome}"} `),
      );
  const deadline = Date.now() + 30_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    if (series(text, 'error')?.endsWith(' 1')) break;
    await sleep(100);
  }
  // City and Tor arrived; ASN was not published; the seven feeds and the VRP set turned off were not asked.
  assert.equal(series(text, 'ok'), 'netinfo_upstream_requests_total{upstream="data_download",outcome="ok"} 2');
  assert.equal(series(text, 'error'), 'netinfo_upstream_requests_total{upstream="data_download",outcome="error"} 1');
  assert.match(text, /netinfo_upstream_duration_seconds_count\{upstream="data_download"\} 3/);

  // Once swapped in, the Tor list shows as a source of its own: its entries, installed just now.
  while (Date.now() < deadline && !/netinfo_data_entries\{source="tor"\}/.test(text)) {
    await sleep(100);
    text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  }
  const tor = Number(/netinfo_data_entries\{source="tor"\} (\d+)/.exec(text)?.[1]);
  const listed = readFileSync(path.join(feedDir, 'tor-exit-nodes.lst'), 'utf8')
    .split('\n')
    .filter((line) => /^\d/.test(line));
  assert.equal(tor, listed.length);
  const age = Number(/netinfo_data_age_seconds\{source="tor"\} ([\d.e-]+)/.exec(text)?.[1]);
  assert.ok(age >= 0 && age < 60, String(age));
});
