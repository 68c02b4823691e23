import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createDnsClient } from '../../src/dns/client.ts';
import type { DnsServer } from '../../src/dns/servers.ts';

/**
 * A real authoritative DNS server (Knot DNS, Debian package `knot`) on 127.0.0.1 at a free port,
 * serving the zones of test/fixtures/dns/, so the resolver is tested against what a real server
 * sends and not only against what we think servers send.
 */

export const FIXTURE_ZONES = ['netinfo.test', '2.0.192.in-addr.arpa', 'dnsbl.test'];
const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/dns/', import.meta.url));
const KNOTD_PATHS = ['/usr/sbin/knotd', '/usr/bin/knotd', '/usr/local/sbin/knotd'];

export type RealDnsServer = { readonly server: DnsServer; stop(): Promise<void> };

/** The knotd binary, or null when the package is not installed (the tests then skip). */
export function findKnotd(): string | null {
  for (const candidate of KNOTD_PATHS) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

/**
 * knotd's configuration: listen on loopback only, keep every file in `dir`, never write zones back.
 * Zones in `signed` are signed by knotd as it loads them (ECDSA P-256, NSEC; keys made in `dir`).
 */
export function buildKnotConfig(options: {
  port: number;
  dir: string;
  zones: readonly string[];
  signed?: readonly string[];
}): string {
  const signed = new Set(options.signed ?? []);
  const signing = '    dnssec-signing: on\n    dnssec-policy: test\n';
  const zones = options.zones.map((zone) => `  - domain: ${zone}\n${signed.has(zone) ? signing : ''}`).join('');
  return `server:
  listen: 127.0.0.1@${options.port}
  rundir: "${options.dir}/run"
log:
  - target: stderr
    any: warning
database:
  storage: "${options.dir}/db"
policy:
  - id: test
    algorithm: ecdsap256sha256
    nsec3: off
template:
  - id: default
    storage: "${options.dir}/zones"
    file: "%s.zone"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
${zones}`;
}

export async function startRealDnsServer(
  zones: readonly string[] = FIXTURE_ZONES,
  options: { signed?: readonly string[] } = {},
): Promise<RealDnsServer> {
  const knotd = findKnotd();
  if (knotd === null) throw new Error('knotd is not installed (apt-get install knot)');
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-knot-'));
  await Promise.all(['run', 'db', 'zones'].map((sub) => mkdir(path.join(dir, sub))));
  for (const zone of zones) {
    await copyFile(path.join(FIXTURES_DIR, `${zone}.zone`), path.join(dir, 'zones', `${zone}.zone`));
  }
  const port = await findFreePort();
  const configPath = path.join(dir, 'knot.conf');
  await writeFile(configPath, buildKnotConfig({ port, dir, zones, ...options }));

  const child = spawn(knotd, ['-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const server = { host: '127.0.0.1', port };
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(server, zones[0] ?? 'netinfo.test', child);
  } catch (error) {
    await stop();
    throw new Error(`knotd did not start: ${(error as Error).message}\n${stderr}`);
  }
  return { server, stop };
}

/** A port free for both UDP and TCP on 127.0.0.1 (another process could still take it; rare). */
export async function findFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const { createSocket } = await import('node:dgram');
    const udp = createSocket('udp4');
    const free = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    udp.close();
    if (free) return port;
  }
  throw new Error('no free port found');
}

export async function waitUntilAnswering(server: DnsServer, zone: string, child: ChildProcess): Promise<void> {
  const client = createDnsClient({ servers: [server], timing: { tryTimeoutMs: 200, deadlineMs: 200 } });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`knotd exited with code ${child.exitCode}`);
    try {
      await client.exchange({ name: zone, type: 'SOA' });
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error('no answer within 10 s');
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killed = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
  if (!killed) {
    child.kill('SIGKILL');
    await exited;
  }
}
