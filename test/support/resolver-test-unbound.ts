import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDnsClient } from '../../src/dns/client.ts';
import type { DnsServer } from '../../src/dns/servers.ts';
import { findFreePort, stopChild } from './real-dns-server.ts';
import { buildUnboundConfig, findUnbound } from './validating-resolver.ts';

export type ZoneResolver = { readonly server: DnsServer; stop(): Promise<void> };

/**
 * Unbound as the visitor's validating resolver for the resolver test: a stub zone sends `zone` to
 * the service's own listener, whose DNSKEY (read from it) is the trust anchor, as the DS at the
 * parent would be in production. Every other name is refused by Unbound (nothing leaves the machine).
 * `interface` may be another local address than 127.0.0.1 (a veth end a network namespace reaches),
 * and `port` 53 for a resolv.conf, which names no port. `trustAnchor` replaces the DNSKEY (a DS, say).
 */
export async function startZoneResolver(
  zone: string,
  listener: DnsServer,
  options: { interface?: string; port?: number; trustAnchor?: string } = {},
): Promise<ZoneResolver> {
  const unbound = findUnbound();
  if (unbound === null) throw new Error('unbound is not installed (apt-get install unbound)');
  const trustAnchor = options.trustAnchor ?? (await readZoneKey(zone, listener));
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-unbound-zone-'));
  const port = options.port ?? (await findFreePort());
  const host = options.interface ?? '127.0.0.1';
  const config = buildUnboundConfig({ port, dir, authoritative: listener, trustAnchors: [trustAnchor], zones: [zone] })
    .replace('interface: 127.0.0.1', `interface: ${host}`)
    .replace('access-control: 127.0.0.0/8 allow', 'access-control: 0.0.0.0/0 allow');
  const configPath = path.join(dir, 'unbound.conf');
  await writeFile(configPath, config);
  const child = spawn(unbound, ['-d', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const server = { host, port };
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForAnswer(server, zone, () => child.exitCode);
  } catch (error) {
    await stop();
    throw new Error(`unbound did not start: ${(error as Error).message}\n${stderr}`);
  }
  return { server, stop };
}

async function readZoneKey(zone: string, listener: DnsServer): Promise<string> {
  const client = createDnsClient({ servers: [listener], timing: { tryTimeoutMs: 1000, deadlineMs: 5000 } });
  const response = await client.exchange({ name: zone, type: 'DNSKEY' });
  const key = response.answers.find((record) => record.type === 'DNSKEY');
  if (key?.type !== 'DNSKEY') throw new Error(`the listener sent no DNSKEY for ${zone}`);
  return `${zone}. DNSKEY ${key.data.flags} 3 ${key.data.algorithm} ${key.data.keyBase64}`;
}

async function waitForAnswer(server: DnsServer, zone: string, exitCode: () => number | null): Promise<void> {
  const client = createDnsClient({ servers: [server], timing: { tryTimeoutMs: 300, deadlineMs: 300 } });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exitCode() !== null) throw new Error(`unbound exited with code ${exitCode()}`);
    const response = await client
      .exchange({ name: zone, type: 'SOA', flags: { dnssecOk: true } })
      .catch(() => undefined);
    if (response?.flags.ad) return;
    await sleep(100);
  }
  throw new Error(`no validated answer for ${zone} within 10 s`);
}
