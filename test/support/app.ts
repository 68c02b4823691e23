import type { AppDeps } from '../../src/app.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';

/** Builds the real app from environment-style settings, silent unless a log stream is given. */
export async function buildTestApp(env: Record<string, string> = {}, deps: AppDeps = {}) {
  const config = loadConfig({ LOG_LEVEL: deps.logStream ? 'info' : 'silent', DATA_DIR: '.tmp/test-data', ...env });
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
