// Debian's headless Chromium for the browser tests, driven by playwright-core.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildAccountsApp } from './accounts.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** No update checks, sync, QUIC or other background traffic: the browser talks to loopback servers only. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why a browser test cannot run here (it says so once), or false. */
export const chromiumSkipReason: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): browser test skipped`;

/**
 * The accounts app listening on loopback, and a fresh Chromium profile opened on nothing yet.
 * `close` shuts the browser, removes the profile and closes the app.
 */
export async function startAppAndBrowser(options: { viewport?: { width: number; height: number } } = {}) {
  const { chromium } = await import('playwright-core');
  const { app, close: closeApp } = await buildAccountsApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const profile = await mkdtemp(path.join(tmpdir(), 'netinfo-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    base,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
      await closeApp();
    },
  };
}
