import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDnsClient } from '../../src/dns/client.ts';
import type { DnsServer } from '../../src/dns/servers.ts';
import { findFreePort, type RealDnsServer, startRealDnsServer, stopChild } from './real-dns-server.ts';

/**
 * A validating resolver (Unbound, Debian package `unbound`) on 127.0.0.1 at a free port, in front
 * of a Knot DNS server that signs secure.test and bogus.test as it loads them: so AD, RRSIG and
 * DNSKEY in the tests are what a real validating resolver sends. Unbound trusts secure.test's key
 * (read from Knot once it has signed), is given a DS for bogus.test that matches none of its keys
 * (every answer bogus: SERVFAIL, or the data without AD when CD is set), and has no anchor for
 * unsigned.test (insecure: never AD). Every other name is refused by Unbound itself, so nothing is
 * ever asked of a server outside this machine.
 */

export const SIGNED_ZONES = ['secure.test', 'bogus.test'];
export const VALIDATION_ZONES = [...SIGNED_ZONES, 'unsigned.test'];
// A DS for bogus.test whose digest is of no key of the zone.
const WRONG_DS = 'bogus.test. DS 12345 13 2 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6';
const UNBOUND_PATHS = ['/usr/sbin/unbound', '/usr/bin/unbound', '/usr/local/sbin/unbound'];

export type ValidatingResolver = {
  /** Unbound: ask it. */
  readonly server: DnsServer;
  /** Knot, the authoritative server behind it (for dig to compare records against). */
  readonly authoritative: DnsServer;
  /** secure.test's key-signing key as a DNSKEY record in presentation form (Unbound's trust anchor). */
  readonly trustAnchor: string;
  stop(): Promise<void>;
};

/** The unbound binary, or null when the package is not installed (the tests then skip). */
export function findUnbound(): string | null {
  for (const candidate of UNBOUND_PATHS) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

/**
 * Unbound's configuration: loopback only, in the foreground, no privileges dropped, no files but
 * `dir`, no remote control; a validator over the iterator, with stub zones pointing at Knot.
 */
export function buildUnboundConfig(options: {
  port: number;
  dir: string;
  authoritative: DnsServer;
  trustAnchors: readonly string[];
  zones: readonly string[];
}): string {
  const anchors = options.trustAnchors.map((anchor) => `  trust-anchor: "${anchor}"\n`).join('');
  const transparent = options.zones.map((zone) => `  local-zone: "${zone}." transparent\n`).join('');
  const stubs = options.zones
    .map(
      (zone) =>
        `stub-zone:\n  name: "${zone}."\n  stub-addr: ${options.authoritative.host}@${options.authoritative.port}\n`,
    )
    .join('');
  return `server:
  interface: 127.0.0.1
  port: ${options.port}
  do-ip6: no
  do-daemonize: no
  username: ""
  chroot: ""
  pidfile: ""
  directory: "${options.dir}"
  use-syslog: no
  logfile: ""
  verbosity: 0
  do-not-query-localhost: no
  module-config: "validator iterator"
  qname-minimisation: no
  trust-anchor-signaling: no
  access-control: 127.0.0.0/8 allow
${anchors}  # Everything outside the test zones is refused here, never looked up.
  local-zone: "." refuse
${transparent}remote-control:
  control-enable: no
${stubs}`;
}

export async function startValidatingResolver(): Promise<ValidatingResolver> {
  const unbound = findUnbound();
  if (unbound === null) throw new Error('unbound is not installed (apt-get install unbound)');
  const knot = await startRealDnsServer(VALIDATION_ZONES, { signed: SIGNED_ZONES });
  let dir: string | undefined;
  let stopUnbound = async () => {};
  try {
    const trustAnchor = await readKeySigningKey(knot, 'secure.test');
    dir = await mkdtemp(path.join(tmpdir(), 'netinfo-unbound-'));
    const port = await findFreePort();
    const configPath = path.join(dir, 'unbound.conf');
    const config = buildUnboundConfig({
      port,
      dir,
      authoritative: knot.server,
      trustAnchors: [trustAnchor, WRONG_DS],
      zones: VALIDATION_ZONES,
    });
    await writeFile(configPath, config);
    const child = spawn(unbound, ['-d', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    stopUnbound = () => stopChild(child);
    const server = { host: '127.0.0.1', port };
    await waitForValidation(server, () => child.exitCode).catch((error: Error) => {
      throw new Error(`unbound did not start: ${error.message}\n${stderr}`);
    });
    const workDir = dir;
    return {
      server,
      authoritative: knot.server,
      trustAnchor,
      async stop() {
        await stopUnbound();
        await knot.stop();
        await rm(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopUnbound();
    await knot.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The zone's KSK (flags 257) as Knot serves it, as `zone. DNSKEY 257 3 13 <key>`. */
async function readKeySigningKey(knot: RealDnsServer, zone: string): Promise<string> {
  const client = createDnsClient({ servers: [knot.server], timing: { tryTimeoutMs: 1000, deadlineMs: 5000 } });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const response = await client.exchange({ name: zone, type: 'DNSKEY' });
    const ksk = response.answers.find((record) => record.type === 'DNSKEY' && record.data.flags === 257);
    if (ksk?.type === 'DNSKEY') return `${zone}. DNSKEY 257 3 ${ksk.data.algorithm} ${ksk.data.keyBase64}`;
    await sleep(100);
  }
  throw new Error(`knotd did not sign ${zone} within 10 s`);
}

/** Waits until Unbound answers secure.test with AD: started, and its trust anchor primed. */
async function waitForValidation(server: DnsServer, exitCode: () => number | null): Promise<void> {
  const client = createDnsClient({ servers: [server], timing: { tryTimeoutMs: 300, deadlineMs: 300 } });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exitCode() !== null) throw new Error(`unbound exited with code ${exitCode()}`);
    const response = await client
      .exchange({ name: 'secure.test', type: 'A', flags: { dnssecOk: true } })
      .catch(() => undefined);
    if (response?.flags.ad) return;
    await sleep(100);
  }
  throw new Error('no validated answer within 10 s');
}
