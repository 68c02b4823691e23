// Debian's headless Chromium for the browser tests, driven by playwright-core.
import { existsSync } from 'node:fs';

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
