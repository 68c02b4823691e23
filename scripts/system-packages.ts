import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Debian packages the project needs beyond Node: the tools the service runs, and the real peers
 * its tests run against. One list, used by `npm install` (runtime) and `npm test` (test).
 */
export const SYSTEM_PACKAGES = {
  runtime: [
    { command: 'ping', package: 'iputils-ping' },
    { command: 'traceroute', package: 'traceroute' },
  ],
  test: [
    { command: 'knotd', package: 'knot' },
    { command: 'dig', package: 'bind9-dnsutils' },
    { command: 'redis-server', package: 'redis-server' },
    { command: 'chromium', package: 'chromium' },
    { command: 'pg_ctlcluster', package: 'postgresql' },
  ],
} as const;

const SEARCH_PATH = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];

export function findCommand(command: string): string | null {
  for (const dir of SEARCH_PATH) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

function run(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

/**
 * Installs the missing packages with apt when running as root; otherwise prints the exact command.
 * Returns the commands still missing afterwards. Never throws: a missing tool degrades one feature.
 */
export function ensureSystemPackages(kind: keyof typeof SYSTEM_PACKAGES, purpose: string): string[] {
  const missing = SYSTEM_PACKAGES[kind].filter((entry) => findCommand(entry.command) === null);
  if (missing.length === 0) return [];
  const packages = [...new Set(missing.map((entry) => entry.package))];
  const canApt = process.getuid?.() === 0 && findCommand('apt-get') !== null && process.env.NETINFO_NO_APT !== '1';
  if (canApt) {
    console.log(`netinfo: installing ${packages.join(' ')} (${purpose}) with apt-get`);
    const installArgs = ['install', '-y', '-q', '--no-install-recommends', ...packages];
    if (!run('apt-get', installArgs)) run('apt-get', ['update', '-q']) && run('apt-get', installArgs);
  }
  const stillMissing = missing.filter((entry) => findCommand(entry.command) === null).map((entry) => entry.command);
  if (stillMissing.length > 0) {
    console.warn(
      `netinfo: ${stillMissing.join(', ')} not found (${purpose}). Install with:\n  sudo apt-get install -y ${packages.join(' ')}`,
    );
  }
  return stillMissing;
}
