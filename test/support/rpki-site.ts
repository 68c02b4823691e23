import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { runDataUpdate } from '../../src/ipinfo/updater/run-update.ts';
import { rpkiOnlyPlan, updatePlanFromConfig } from '../../src/ipinfo/updater/update-plan.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';
import { startLiveDataApp } from './live-data-app.ts';
import { startLocalHttpServer } from './local-http-server.ts';

// Forty minutes before the test runs, in whole seconds as rpki-client writes `generated`.
export const GENERATED = Math.floor(Date.now() / 1000 - 40 * 60) * 1000;

/** rpki-client's vrps.json. The embedded ASN data routes 1.1.1.0/24 and 1.0.0.0/24 from AS13335, 8.8.8.0/24 from AS15169. */
export const VRPS = JSON.stringify({
  metadata: { buildmachine: 'test', generated: GENERATED / 1000 },
  roas: [
    { prefix: '1.1.1.0/24', maxLength: 24, asn: 13335 },
    // 1.0.0.0/24 authorised for another AS only: invalid by origin.
    { prefix: '1.0.0.0/24', maxLength: 24, asn: 64496 },
    // AS15169 may announce 8.8.0.0/16 up to /23 only: its /24 is invalid by length.
    { prefix: '8.8.0.0/16', maxLength: 23, asn: 15169 },
    { prefix: '2606:4700::/32', maxLength: 48, asn: 13335 },
  ].map((roa) => ({ ...roa, ta: 'test', expires: GENERATED / 1000 + 86_400 })),
});

/**
 * The app on loopback with FEED_RPKI_URL pointed at a local server holding `VRPS`. DATA_REFRESH_HOURS=0:
 * the app downloads nothing itself (the VRP set included); `install` runs the updater as the refresh would.
 * With a browser, as startSite (site-browser.ts).
 */
export async function startRpkiSite(name: string) {
  mkdirSync('.tmp', { recursive: true });
  const dataDir = mkdtempSync(path.resolve('.tmp', `${name}-`));
  const server = await startLocalHttpServer();
  server.set('/vrps.json', { body: VRPS });
  const env = {
    DATA_DIR: dataDir,
    HOSTNAME_TIMEOUT_MS: '0',
    DATA_REFRESH_HOURS: '0',
    FEED_RPKI_URL: `${server.origin}/vrps.json`,
    TRUST_PROXY: 'loopback',
  };
  const { app, store, base } = await startLiveDataApp(env);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return {
    app,
    store,
    base,
    server,
    browser,
    /** Installs what the server holds, and waits until the app uses a set made at `generatedAt` (NaN: the export does not say). */
    async install(generatedAt = GENERATED) {
      const reports = await runDataUpdate(rpkiOnlyPlan(updatePlanFromConfig(loadConfig(env))));
      const report = reports.find((candidate) => candidate.id === 'rpki');
      assert.equal(report?.outcome, 'updated', report?.detail);
      const made = () => store.current?.rpki?.generatedAt;
      for (let i = 0; i < 250 && !Object.is(made(), generatedAt); i++) await sleep(20);
      assert.ok(Object.is(made(), generatedAt), 'the set is in use');
    },
    async close() {
      await browser.close();
      await server.close();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
