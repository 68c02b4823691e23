import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { startLocalHttpServer } from '../support/local-http-server.ts';
import { feedDir, feedSkip, mmdb } from '../support/mmdb-fixtures.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { startServiceProcess } from '../support/service-process.ts';

const PROBE = '216.160.83.56';

describe('WORKERS=2: new data reaches every worker thread at once', {
  skip: redisSkipReason || feedSkip,
  timeout: 90_000,
}, () => {
  const suite = redisForSuite();

  it('after an update both workers answer with the new data within a second of each other, none mixed', async (t) => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'workers-refresh-'));
    const server = await startLocalHttpServer();
    const service = await startServiceProcess({
      REDIS_URL: suite.redis.url,
      WORKERS: '2',
      DATA_DIR: dataDir,
      TRUST_PROXY: 'loopback',
      HOSTNAME_TIMEOUT_MS: '0',
      RATE_LIMITS: 'public=1000000/1000000',
      // The test runs the updater itself (as `npm run data:update` would, beside the service).
      DATA_REFRESH_HOURS: '0',
    });
    t.after(async () => {
      await service.stop();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    // A new connection each time, so both workers answer; a request id names its worker thread.
    const ask = async () => {
      const response = await fetch(`${service.url}/api/v1/json`, {
        headers: { 'x-forwarded-for': PROBE, connection: 'close' },
      });
      const body = await response.text();
      const worker = String(response.headers.get('x-request-id')).split('-')[0] as string;
      return { worker, answer: `${response.headers.get('x-data-attribution')} ${body}` };
    };
    for (let i = 0; i < 100 && (await fetch(`${service.url}/readyz`)).status !== 200; i++) await sleep(50);
    const before = (await ask()).answer;
    assert.match(before, /RouteViews/, 'the embedded ASN data');

    const seen: { at: number; worker: string; answer: string }[] = [];
    let stop = false;
    const hammer = async () => {
      while (!stop) seen.push({ ...(await ask()), at: Date.now() });
    };
    const hammers = Array.from({ length: 4 }, hammer);
    await sleep(200);
    server.set('/city.mmdb.gz', { body: gzipSync(mmdb('GeoIP2-City-Test')) });
    server.set('/asn.mmdb.gz', { body: gzipSync(mmdb('GeoLite2-ASN-Test')) });
    server.set('/tor', { body: readFileSync(path.join(feedDir, 'tor-exit-nodes.lst')) });
    const off = [
      'vpn-ipv4',
      'vpn-ipv6',
      'vpn-asn',
      'datacenter-ipv4',
      'datacenter-ipv6',
      'datacenter-asn',
      'proxy',
      'rpki',
    ];
    const reports = await runDataUpdate({
      dataDir,
      urls: {
        city: `${server.origin}/city.mmdb.gz`,
        asn: `${server.origin}/asn.mmdb.gz`,
        tor: `${server.origin}/tor`,
        ...Object.fromEntries(off.map((id) => [id, null])),
      } as never,
      skip: {},
      licenseKey: null,
    });
    assert.deepEqual(
      reports.filter((r) => r.outcome === 'updated').map((r) => r.id),
      ['city', 'asn', 'tor'],
    );
    const installedAt = Date.now();
    const workers = () => new Set(seen.map((s) => s.worker));
    const firstNew = (worker: string) => seen.find((s) => s.worker === worker && s.answer !== before)?.at;
    for (let i = 0; i < 100 && [...workers()].some((w) => firstNew(w) === undefined); i++) await sleep(50);
    await sleep(200);
    stop = true;
    await Promise.all(hammers);

    assert.equal(workers().size, 2, 'both workers answered');
    const switched = [...workers()].map((w) => firstNew(w));
    const perWorker = [...workers()].map((w) => {
      const after = seen.filter((s) => s.worker === w && s.at >= installedAt);
      return `${w}: ${after.length} answers after the install, ${after.filter((s) => s.answer !== before).length} new`;
    });
    assert.ok(
      switched.every((at) => at !== undefined),
      `every worker answers with the new data (${perWorker.join('; ')}; waited ${Date.now() - installedAt} ms)\n${service.output().slice(-3000)}`,
    );
    const [first, last] = [Math.min(...(switched as number[])), Math.max(...(switched as number[]))];
    assert.ok(last - first < 1000, `the workers switched ${last - first} ms apart`);
    assert.ok(last - installedAt < 3000, `the last worker switched ${last - installedAt} ms after the install`);
    const after = seen.at(-1)?.answer as string;
    assert.match(after, /"city":"Milton"/);
    assert.match(after, /"network":\{"asn":"AS209","route":"216.160.64.0\/18"\}/);
    const mixed = seen.filter((s) => s.answer !== before && s.answer !== after);
    assert.deepEqual(mixed, [], 'no answer mixed old and new data');
    const stale = seen.filter((s) => s.answer === before && s.at > last);
    assert.deepEqual(stale, [], 'no worker went back to the old data');
  });
});
