import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';

/**
 * A throwaway PostgreSQL cluster on 127.0.0.1 for the repository tests: initdb into a temp dir,
 * started and stopped by the test. PostgreSQL refuses to run as root, so as root the cluster runs
 * as the `postgres` user that Debian's package creates. Tests skip, saying so, without the binaries.
 */
function findPgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(base, version, 'bin');
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

const pgBin = findPgBin();
const isRoot = process.getuid?.() === 0;
const hasPostgresUser = spawnSync('id', ['-u', 'postgres']).status === 0;

export const postgresSkipReason = !pgBin
  ? 'PostgreSQL not installed (apt package postgresql)'
  : isRoot && !hasPostgresUser
    ? 'running as root without a postgres user to run the server as'
    : false;

export interface TestPostgres {
  readonly url: string;
  stop(): Promise<void>;
  /** Stops the server at once (as a crash would), waits `downMs`, starts it again on the same port and data. */
  restart(downMs?: number): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  if (!pgBin) throw new Error('PostgreSQL not installed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'netinfo-pg-'));
  const dataDir = path.join(dir, 'data');
  const asServerUser = (command: string, args: string[]) =>
    isRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
      : execFileSync(command, args, { stdio: 'pipe' });
  if (isRoot) {
    execFileSync('chown', ['postgres', dir]);
    chmodSync(dir, 0o700);
  }
  asServerUser(path.join(pgBin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  const start = () =>
    asServerUser(path.join(pgBin, 'pg_ctl'), [
      '-D',
      dataDir,
      '-w',
      '-l',
      path.join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  const stopNow = () => asServerUser(path.join(pgBin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  start();
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs = 0) {
      stopNow();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        stopNow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

let databases = 0;

/** A fresh, empty database on a throwaway cluster: its URL. */
export async function freshDatabase(server: TestPostgres): Promise<string> {
  const name = `netinfo_test_${process.pid}_${++databases}`;
  const admin = new pg.Client(server.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return server.url.replace(/\/postgres$/, `/${name}`);
}
