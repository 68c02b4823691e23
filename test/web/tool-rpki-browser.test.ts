import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { rpkiOnlyPlan, updatePlanFromConfig } from '../../src/ipinfo/updater/update-plan.ts';
import { BADGE_CLASS, LONG } from '../../src/web/site/rpki-view.ts';
import { CHROMIUM, CHROMIUM_ARGS, chromiumSkipReason } from '../support/chromium.ts';
import { startLiveDataApp } from '../support/live-data-app.ts';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server.ts';
import { checkToolPage, WIDTHS, watchedPage } from '../support/site-browser.ts';

const GENERATED = Math.floor(Date.now() / 1000 - 40 * 60) * 1000;

/** rpki-client's vrps.json, as test/web/lookup-rpki-browser.test.ts installs it. */
const VRPS = JSON.stringify({
  metadata: { buildmachine: 'test', generated: GENERATED / 1000 },
  roas: [
    { prefix: '1.1.1.0/24', maxLength: 24, asn: 13335 },
    { prefix: '1.0.0.0/24', maxLength: 24, asn: 64496 },
    { prefix: '8.8.0.0/16', maxLength: 23, asn: 15169 },
    { prefix: '8.0.0.0/8', maxLength: 24, asn: 0 },
  ].map((roa) => ({ ...roa, ta: 'test', expires: GENERATED / 1000 + 86_400 })),
});

/** Each case's state and reason as /api/v1/json would say them, and the VRPs in each group (matched, other AS, too short). */
const CASES = [
  { name: 'valid', prefix: '1.1.1.0/24', asn: 'AS13335', status: 'valid', reason: undefined, groups: [1, 0, 0] },
  { name: 'invalid-as', prefix: '1.0.0.0/24', asn: 'AS13335', status: 'invalid', reason: 'asn', groups: [0, 1, 0] },
  {
    name: 'invalid-length',
    prefix: '8.8.8.0/24',
    asn: '15169',
    status: 'invalid',
    reason: 'length',
    groups: [0, 1, 1],
  },
  {
    name: 'not-found',
    prefix: '9.9.9.0/24',
    asn: 'AS19281',
    status: 'not-found',
    reason: undefined,
    groups: [0, 0, 0],
  },
] as const;

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

describe('/tools/rpki: a prefix and an origin validated against the loaded VRPs', {
  skip: chromiumSkipReason,
  timeout: 240_000,
}, () => {
  let server: LocalHttpServer;
  let app: FastifyInstance;
  let store: IpDataStore;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let env: Record<string, string>;

  before(async () => {
    mkdirSync('.tmp', { recursive: true });
    dataDir = mkdtempSync(path.resolve('.tmp', 'rpki-tool-'));
    server = await startLocalHttpServer();
    server.set('/vrps.json', { body: VRPS });
    env = {
      DATA_DIR: dataDir,
      HOSTNAME_TIMEOUT_MS: '0',
      DATA_REFRESH_HOURS: '0',
      FEED_RPKI_URL: `${server.origin}/vrps.json`,
      TRUST_PROXY: 'loopback',
    };
    ({ app, store, base } = await startLiveDataApp(env));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('before any VRP set is installed, the 503 is said plainly', async () => {
    assert.equal(store.current?.rpki, undefined);
    const watched = await watchedPage(browser, base, { width: 375 });
    await watched.page.goto(`${base}/tools/rpki?prefix=1.1.1.0%2F24&asn=AS13335`);
    const alert = watched.page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^The API answered 503: .*VRP/i);
    await checkToolPage(watched, 'i33-tool-rpki-503-375', { failedLoads: true });
  });

  it("each state in the lookup pages' words and badge, Routinator's reason, the VRP groups, the set's age", async () => {
    const reports = await runDataUpdate(rpkiOnlyPlan(updatePlanFromConfig(loadConfig(env))));
    assert.equal(reports.find((report) => report.id === 'rpki')?.outcome, 'updated');
    for (let i = 0; i < 250 && store.current?.rpki?.generatedAt !== GENERATED; i++) await sleep(20);
    assert.equal(store.current?.rpki?.size, 4, 'the set is in use');
    for (const width of WIDTHS) {
      for (const { name, prefix, asn, status, reason, groups } of CASES) {
        const query = `prefix=${encodeURIComponent(prefix)}&asn=${asn}`;
        const answer = await getJson(`${base}/api/v1/rpki?${query}`);
        const watched = await watchedPage(browser, base, { width });
        const { page } = watched;
        await page.goto(`${base}/tools/rpki?${query}`);
        const badge = page.locator('#tool-result .badge.rpki');
        await badge.waitFor();
        assert.equal(await badge.textContent(), `${LONG[status]}${reason ? `: ${LONG[reason]}` : ''}`, name);
        assert.equal(await badge.getAttribute('class'), `badge rpki ${BADGE_CLASS[status]}`, name);
        assert.ok(
          await page.getByText(answer.validated_route.validity.description, { exact: true }).isVisible(),
          `${name}: Routinator's reason`,
        );
        const counts = [];
        for (const key of ['matched', 'unmatched_as', 'unmatched_length']) {
          const rows = page.locator(`.vrp-group.${key} tbody tr`);
          counts.push(await rows.count());
          for (const vrp of answer.validated_route.validity.VRPs[key]) {
            const row = rows.filter({ hasText: vrp.prefix });
            assert.match((await row.textContent()) ?? '', new RegExp(`/${vrp.max_length}${vrp.asn}$`), name);
            if (vrp.asn !== 'AS0') assert.equal(await row.locator('a').getAttribute('href'), `/lookup/${vrp.asn}`);
            else assert.equal(await row.locator('a').count(), 0, 'AS0 is no network to look up');
          }
        }
        assert.deepEqual(counts, groups, `${name}: matched, other AS, too short`);
        assert.match(
          (await page.locator('.rpki-age').textContent()) ?? '',
          /^VRPs generated 4\d min ago by the validator \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/,
        );
        await checkToolPage(watched, `i33-tool-rpki-${name}-${width}`);
      }
    }
  });

  it('bad input: the 400 names the parameter', async () => {
    const watched = await watchedPage(browser, base, { width: 1280 });
    await watched.page.goto(`${base}/tools/rpki?prefix=1.1.1.1%2F24&asn=AS13335`);
    const alert = watched.page.locator('.alert.error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^The API cannot use this input: .*'prefix'.*host bits/);
    await checkToolPage(watched, 'i33-tool-rpki-400-1280', { failedLoads: true });
  });
});
