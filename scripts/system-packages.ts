import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Debian packages the project needs beyond Node: the tools the service runs, and the real peers
 * its tests run against, each with what it is for. One list, used by `npm install` (runtime) and
 * `npm test` (runtime and test).
 */
export const SYSTEM_PACKAGES = {
  runtime: [
    { command: 'ping', package: 'iputils-ping', purpose: '/api/v1/ping and its tests' },
    { command: 'traceroute', package: 'traceroute', purpose: '/api/v1/traceroute and its tests' },
    { command: 'mtr', package: 'mtr-tiny', purpose: '/api/v1/mtr and its tests' },
  ],
  test: [
    { command: 'knotd', package: 'knot', purpose: 'the real DNS server of the DNS and mail tests' },
    { command: 'dig', package: 'bind9-dnsutils', purpose: 'the DNS tests compare answers with dig' },
    { command: 'redis-server', package: 'redis-server', purpose: 'the Redis tests (REDIS_URL)' },
    { command: 'chromium', package: 'chromium', purpose: 'the dashboard and CORS tests in a browser' },
    { command: 'pg_ctlcluster', package: 'postgresql', purpose: 'the PostgreSQL tests (DATABASE_URL)' },
    { command: 'unbound', package: 'unbound', purpose: 'the validating resolver of the DNSSEC tests' },
    {
      command: 'openssl',
      package: 'openssl',
      purpose: 'the TLS tests make their certificates and OCSP responses with it',
    },
    { command: 'promtool', package: 'prometheus', purpose: 'the metrics tests check /metrics with promtool' },
    { command: 'curl', package: 'curl', purpose: 'the port check tests ask from inside a network namespace' },
  ],
} as const;

type SystemPackage = (typeof SYSTEM_PACKAGES)[keyof typeof SYSTEM_PACKAGES][number];

/** One line per package: `name (what it is for)`. */
export function describePackages(entries: readonly SystemPackage[]): string {
  return entries.map((entry) => `${entry.package} (${entry.purpose})`).join(', ');
}

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
 * Installs the missing packages with apt when running as root; otherwise prints the exact command
 * and what each missing package is for. Returns the commands still missing afterwards. Never
 * throws: a missing tool degrades one feature.
 */
export function ensureSystemPackages(kind: keyof typeof SYSTEM_PACKAGES): string[] {
  const missing = SYSTEM_PACKAGES[kind].filter((entry) => findCommand(entry.command) === null);
  if (missing.length === 0) return [];
  const canApt = process.getuid?.() === 0 && findCommand('apt-get') !== null && process.env.NETINFO_NO_APT !== '1';
  if (canApt) {
    const packages = [...new Set(missing.map((entry) => entry.package))];
    console.log(`netinfo: installing ${describePackages(missing)} with apt-get`);
    const installArgs = ['install', '-y', '-q', '--no-install-recommends', ...packages];
    if (!run('apt-get', installArgs)) run('apt-get', ['update', '-q']) && run('apt-get', installArgs);
  }
  const stillMissing = missing.filter((entry) => findCommand(entry.command) === null);
  if (stillMissing.length > 0) console.warn(missingMessage(stillMissing));
  return stillMissing.map((entry) => entry.command);
}

/** What `ensureSystemPackages` prints for the packages it could not install. */
export function missingMessage(entries: readonly SystemPackage[]): string {
  const packages = [...new Set(entries.map((entry) => entry.package))];
  const lines = entries.map((entry) => `  ${entry.command} (apt package ${entry.package}): ${entry.purpose}`);
  return `netinfo: not found:\n${lines.join('\n')}\nInstall with:\n  sudo apt-get install -y ${packages.join(' ')}`;
}
