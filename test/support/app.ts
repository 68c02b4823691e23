import type { AppDeps } from '../../src/app.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { NO_DOWNLOADS_ENV } from './no-downloads.ts';

/** Builds the real app from environment-style settings, silent unless a log stream is given. */
export async function buildTestApp(env: Record<string, string> = {}, deps: AppDeps = {}) {
  const config = loadConfig({
    // No download source points at the internet (a test that tests one sets it to a local server).
    ...NO_DOWNLOADS_ENV,
    LOG_LEVEL: deps.logStream ? 'info' : 'silent',
    DATA_DIR: '.tmp/test-data',
    // Nothing leaves the machine: a test that needs DNS points this at its own local server;
    // any other lookup goes to a closed loopback port and fails at once.
    DNS_SERVERS: '127.0.0.1:9',
    // Parallel tests would fight over 9464: the metrics listener is off unless a test turns it on.
    METRICS_PORT: '0',
    ...env,
  });
  return buildApp(config, deps);
}

/** A clock tests move by hand. */
export function manualClock(startIso: string) {
  let time = Date.parse(startIso);
  return {
    now: () => time,
    set: (iso: string) => {
      time = Date.parse(iso);
    },
    advance: (ms: number) => {
      time += ms;
    },
  };
}
