import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where the IP data lives under DATA_DIR:
 *
 *   ipinfo/embedded/    caches of the data shipped in npm packages (decompressed / compiled)
 *   ipinfo/downloads/   what `npm run data:update` installed, one fixed file name per source,
 *                       and manifest.json, written last: the service reloads when it changes
 *
 * Every file is written under a temporary name in its own directory and renamed into place, so a
 * reader sees the old file or the new one, never a part of one.
 */
export function ipDataPaths(dataDir: string) {
  const root = path.join(dataDir, 'ipinfo');
  const downloads = path.join(root, 'downloads');
  return {
    embedded: path.join(root, 'embedded'),
    downloads,
    manifest: path.join(downloads, 'manifest.json'),
    lock: path.join(downloads, '.update.lock'),
  };
}

export type SourceId =
  | 'city'
  | 'asn'
  | 'tor'
  | 'vpn-ipv4'
  | 'vpn-ipv6'
  | 'vpn-asn'
  | 'datacenter-ipv4'
  | 'datacenter-ipv6'
  | 'datacenter-asn'
  | 'proxy'
  | 'rpki';

export type SourceKind = 'city-mmdb' | 'asn-mmdb' | 'tor-list' | 'cidr-list' | 'asn-list' | 'vrp-json';

export interface SourceSpec {
  readonly id: SourceId;
  readonly kind: SourceKind;
  /** File name under downloads/ (for `vrp-json`, the compiled set: src/rpki/vrp-file.ts). */
  readonly file: string;
  readonly what: string;
}

export const SOURCES: readonly SourceSpec[] = [
  { id: 'city', kind: 'city-mmdb', file: 'city.mmdb', what: 'City database' },
  { id: 'asn', kind: 'asn-mmdb', file: 'asn.mmdb', what: 'ASN database' },
  { id: 'tor', kind: 'tor-list', file: 'tor-exits.txt', what: 'Tor exit list' },
  { id: 'vpn-ipv4', kind: 'cidr-list', file: 'vpn-ipv4.txt', what: 'VPN IPv4 networks' },
  { id: 'vpn-ipv6', kind: 'cidr-list', file: 'vpn-ipv6.txt', what: 'VPN IPv6 networks' },
  { id: 'vpn-asn', kind: 'asn-list', file: 'vpn-asn.txt', what: 'VPN ASNs' },
  { id: 'datacenter-ipv4', kind: 'cidr-list', file: 'datacenter-ipv4.txt', what: 'datacenter IPv4 networks' },
  { id: 'datacenter-ipv6', kind: 'cidr-list', file: 'datacenter-ipv6.txt', what: 'datacenter IPv6 networks' },
  { id: 'datacenter-asn', kind: 'asn-list', file: 'datacenter-asn.txt', what: 'datacenter ASNs' },
  { id: 'proxy', kind: 'cidr-list', file: 'proxy.txt', what: 'open-proxy networks' },
  { id: 'rpki', kind: 'vrp-json', file: 'rpki-vrps.bin', what: 'RPKI VRP set' },
];

/** What the updater knows of one installed download. */
export interface InstalledSource {
  file: string;
  sha256: string;
  bytes: number;
  /** The URL it came from, with any licence key removed. */
  url: string;
  installedAt: string;
  /** When the data was built (mmdb metadata), when known. */
  builtAt?: string;
  /** Lines or networks (feeds) or search-tree nodes (mmdb): the baseline for the shrink check. */
  size: number;
  etag?: string;
  lastModified?: string;
}

export interface Manifest {
  format: 1;
  /** Changes with every update run that installed something; the service reloads on a change. */
  generation: string;
  updatedAt: string;
  sources: Partial<Record<SourceId, InstalledSource>>;
  /** The last failure of each source since it was last installed: what an operator needs to know. */
  failures: Partial<Record<SourceId, { at: string; reason: string }>>;
}

export function emptyManifest(): Manifest {
  return { format: 1, generation: '', updatedAt: '', sources: {}, failures: {} };
}

/** The manifest, or an empty one when there is none yet (or it is unreadable: updates rebuild it). */
export async function readManifest(manifestPath: string): Promise<Manifest> {
  try {
    const parsed = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
    return parsed.format === 1 ? { ...emptyManifest(), ...parsed } : emptyManifest();
  } catch {
    return emptyManifest();
  }
}

/** A file as it is now; `key` changes whenever the file is replaced. */
export interface FileStamp {
  readonly key: string;
  readonly modifiedAt: number;
}

export async function stampOf(file: string): Promise<FileStamp | undefined> {
  try {
    return stampFrom(file, await stat(file));
  } catch {
    return undefined;
  }
}

export function stampFrom(file: string, info: Stats): FileStamp {
  return { key: `${file}:${info.size}:${info.mtimeMs}:${info.ino}`, modifiedAt: info.mtimeMs };
}

/** Reads a whole data file (the workers' supervisor hands out one shared copy: workers/shared-files.ts). */
export type ReadBytes = (file: string) => Promise<Buffer>;

export const readWholeFile: ReadBytes = (file) => readFile(file);
