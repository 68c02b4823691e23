import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { ipDataPaths } from '../../src/ipinfo/data/data-files.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { scheduleDataRefresh } from '../../src/ipinfo/data-refresh.ts';

const noSources = {
  maxmindLicenseKey: null,
  geoipCityUrl: null,
  geoipAsnUrl: null,
  geoipCityDb: null,
  geoipAsnDb: null,
  feedTorUrl: null,
  feedVpnIpv4Url: null,
  feedVpnIpv6Url: null,
  feedVpnAsnUrl: null,
  feedDatacenterIpv4Url: null,
  feedDatacenterIpv6Url: null,
  feedDatacenterAsnUrl: null,
  feedProxyUrl: null,
  rpkiFeedUrl: null,
  rpkiVrpFile: null,
  rpkiRefreshMinutes: 0,
};

function fakeApp() {
  const lines: { level: string; msg: string; failed?: string[] }[] = [];
  const log = (level: string) => (fields: unknown, msg?: string) =>
    lines.push({
      level,
      msg: typeof fields === 'string' ? fields : (msg ?? ''),
      ...(typeof fields === 'object' && fields !== null && 'failed' in fields
        ? { failed: fields.failed as string[] }
        : {}),
    });
  const app = {
    log: { info: log('info'), warn: log('warn'), error: log('error') },
    shutdownSignal: new AbortController().signal,
  } as unknown as FastifyInstance;
  const store = { loaded: async () => undefined, reload: async () => {} } as unknown as IpDataStore;
  return { app, store, lines };
}

describe('scheduleDataRefresh', () => {
  it('offline from a fresh start: one warning per attempt, and the next attempt an hour later, not DATA_REFRESH_HOURS', async (t) => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-retry-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    mock.timers.enable({ apis: ['setInterval', 'Date'], now: Date.parse('2026-11-25T00:00:00Z') });
    t.after(() => mock.timers.reset());
    const { app, store, lines } = fakeApp();
    const timer = scheduleDataRefresh(
      app,
      { ...noSources, dataDir, feedTorUrl: 'http://127.0.0.1:9/tor', dataRefreshHours: 24 },
      store,
    );
    t.after(() => clearInterval(timer));
    const warnings = () => lines.filter((line) => line.level === 'warn').length;
    const waitFor = async (count: number) => {
      for (let i = 0; i < 300 && warnings() < count; i++) await sleep(20);
    };
    await waitFor(1);
    assert.equal(warnings(), 1, `the attempt at start failed with one line: ${JSON.stringify(lines)}`);
    mock.timers.tick(59 * 60_000);
    await sleep(300);
    assert.equal(warnings(), 1, 'not again within the hour');
    mock.timers.tick(60_000);
    await waitFor(2);
    assert.equal(warnings(), 2, `tried again after an hour: ${JSON.stringify(lines)}`);
    assert.deepEqual(
      lines.filter((line) => line.level !== 'info').map((line) => line.msg),
      [
        'IP data refresh finished; the sources that failed keep the data in use',
        'IP data refresh finished; the sources that failed keep the data in use',
      ],
    );
  });

  it('the VRP set alone every RPKI_REFRESH_MINUTES between the daily runs, at once when it is missing', async (t) => {
    const dataDir = mkdtempSync(path.resolve('.tmp', 'refresh-rpki-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const start = Date.parse('2026-11-25T00:00:00Z');
    // The other data was updated just now; no VRP set was ever installed.
    const { downloads, manifest } = ipDataPaths(dataDir);
    mkdirSync(downloads, { recursive: true });
    const tor = {
      file: 'tor-exits.txt',
      sha256: '',
      bytes: 1,
      url: 'x',
      installedAt: new Date(start).toISOString(),
      size: 1,
    };
    const installed = {
      format: 1,
      generation: 'g',
      updatedAt: new Date(start).toISOString(),
      sources: { tor },
      failures: {},
    };
    writeFileSync(manifest, JSON.stringify(installed));
    mock.timers.enable({ apis: ['setInterval', 'Date'], now: start });
    t.after(() => mock.timers.reset());
    const { app, store, lines } = fakeApp();
    const timer = scheduleDataRefresh(
      app,
      {
        ...noSources,
        dataDir,
        feedTorUrl: 'http://127.0.0.1:9/tor',
        rpkiFeedUrl: 'http://127.0.0.1:9/rpki',
        dataRefreshHours: 24,
        rpkiRefreshMinutes: 30,
      },
      store,
    );
    t.after(() => clearInterval(timer));
    const attempts = () =>
      lines
        .filter((line) => line.failed !== undefined)
        .map((line) => line.failed?.map((f) => f.split(':')[0]).join(','));
    const waitFor = async (count: number) => {
      for (let i = 0; i < 300 && attempts().length < count; i++) await sleep(20);
    };
    await waitFor(1);
    assert.deepEqual(attempts(), ['rpki'], 'at start: the missing VRP set only');
    mock.timers.tick(29 * 60_000);
    await sleep(200);
    assert.equal(attempts().length, 1, 'not again within RPKI_REFRESH_MINUTES');
    mock.timers.tick(60_000);
    await waitFor(2);
    assert.deepEqual(attempts(), ['rpki', 'rpki']);
    // Until that attempt has finished (the log line comes before it reads the manifest again).
    await sleep(200);
    // Mocked timers see the clock at the tick's end: the first interval due sees the daily run due.
    mock.timers.tick(24 * 3_600_000 - 30 * 60_000);
    await waitFor(3);
    assert.deepEqual(attempts(), ['rpki', 'rpki', 'tor,rpki'], 'the daily run fetches everything, the VRP set too');
  });

  it('nothing is scheduled when every source is off', () => {
    const { app, store, lines } = fakeApp();
    const timer = scheduleDataRefresh(app, { ...noSources, dataDir: '.tmp/unused', dataRefreshHours: 24 }, store);
    assert.equal(timer, undefined);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['IP data refresh off: every source is off or supplied by the operator'],
    );
  });
});
