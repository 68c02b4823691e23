import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../src/app.ts';
import { buildTestApp } from '../support/app.ts';
import { findFreePort } from '../support/real-dns-server.ts';

export const ZONE = 'probe.test';
/** 24 characters of base32, as the page makes them. */
export const TOKEN = 'abcdefghijklmnopqrstuvw2';

const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export const findDig = (): string | null => ['/usr/bin/dig', '/usr/local/bin/dig'].find(executable) ?? null;

export type ZoneApp = { app: FastifyInstance; dnsPort: number };

/** The app with the resolver test on, its DNS listener on 127.0.0.1 at a free port. */
export async function startZoneApp(env: Record<string, string> = {}, deps: AppDeps = {}): Promise<ZoneApp> {
  const dnsPort = await findFreePort();
  const app = await buildTestApp(
    {
      RESOLVER_TEST_ZONE: ZONE,
      RESOLVER_TEST_DNS_PORT: String(dnsPort),
      RESOLVER_TEST_DNS_HOST: '127.0.0.1',
      RESOLVER_TEST_ADDRESSES: '127.0.0.1,::1',
      // Unbound in these tests holds the DS as its trust anchor: the chain a published DS gives.
      RESOLVER_TEST_DS_PUBLISHED: 'true',
      ...env,
    },
    deps,
  );
  try {
    await app.ready();
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return { app, dnsPort };
}

const execFileAsync = promisify(execFile);

/** dig's full output for `args` (its own options included) against a server. */
export async function dig(server: { host: string; port: number }, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(findDig() ?? 'dig', [
    `@${server.host}`,
    '-p',
    String(server.port),
    '+time=2',
    '+tries=1',
    ...args,
  ]);
  return stdout;
}

/** The header's status and flags, and the answer section's lines, of dig's output. */
export function readDig(output: string) {
  const status = /status: (\w+)/.exec(output)?.[1];
  const flags = (/;; flags: ([a-z ]*);/.exec(output)?.[1] ?? '').trim().split(' ');
  const section = (name: string) => {
    const start = output.indexOf(`;; ${name} SECTION:\n`);
    if (start === -1) return [];
    const rest = output.slice(start).split('\n').slice(1);
    const end = rest.indexOf('');
    return rest.slice(0, end === -1 ? undefined : end).map((line) => line.split(/\s+/));
  };
  const size = Number(/MSG SIZE {2}rcvd: (\d+)/.exec(output)?.[1]);
  return { status, flags, answers: section('ANSWER'), authority: section('AUTHORITY'), size };
}
