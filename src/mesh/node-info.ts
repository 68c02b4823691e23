import { access, constants, readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { classifySpecialAddress } from '../net/special-addresses.ts';
import type { NodeLocation } from './location.ts';

/** One node of the mesh as `GET /api/v1/nodes` lists it (schema.ts describes each field). */
export interface NodeInfo {
  name: string;
  location: NodeLocation;
  asn: number | null;
  as_name: string | null;
  tags: string[];
  tools: string[];
  ipv4: boolean;
  ipv6: boolean;
  raw_sockets: boolean;
  version: string;
}

const PROBE_TOOLS = ['ping', 'traceroute', 'mtr'] as const;

/** The probe tools found on PATH: a node without mtr gets no MTR probes. */
export async function installedTools(searchPath = process.env.PATH ?? ''): Promise<string[]> {
  const found: string[] = [];
  for (const tool of PROBE_TOOLS) {
    for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
      try {
        await access(path.join(dir, tool), constants.X_OK);
        found.push(tool);
        break;
      } catch {}
    }
  }
  return found;
}

/** Global unicast addresses of this machine's interfaces, by family. */
export function publicInterfaceAddresses(): { ipv4: string[]; ipv6: string[] } {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.internal || classifySpecialAddress(entry.address)?.globallyReachable === false) continue;
      (entry.family === 'IPv4' ? ipv4 : ipv6).push(entry.address);
    }
  }
  return { ipv4, ipv6 };
}

/** CAP_NET_RAW in the effective set (root has it): ICMP and TCP traceroute need it. */
export async function hasRawSockets(): Promise<boolean> {
  try {
    const status = await readFile('/proc/self/status', 'utf8');
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    return effective !== undefined && (BigInt(`0x${effective}`) & (1n << 13n)) !== 0n;
  } catch {
    return process.getuid?.() === 0;
  }
}
