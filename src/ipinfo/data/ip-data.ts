import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Cidr } from '../../net/cidr.ts';
import type { IpAddress } from '../../net/ip-address.ts';
import { type AsnIndex, buildAsnIndex } from './asn-index.ts';
import type { AsnRangeColumns, AsnRanges } from './asn-ranges.ts';
import { ipDataPaths, readManifest, SOURCES, type SourceId } from './data-files.ts';
import { type CacheWriter, type EmbeddedData, embeddedAsnRanges, embeddedCityDatabase } from './embedded-data.ts';
import { parseAsnList, parseCidrList, parseTorExitList } from './feeds.ts';
import {
  type AnonymityReader,
  type ConnectionTypeReader,
  createAnonymityReader,
  createConnectionTypeReader,
  createLocationReader,
  createNetworkReader,
  type LocationReader,
} from './geo.ts';
import type { Network, NetworkReader } from './network.ts';
import { buildSecurityFeeds, type SecurityFeedData, type SecurityFeeds } from './security-feeds.ts';

/**
 * One complete, immutable set of IP data. The store swaps whole snapshots, and a request takes
 * one snapshot and does every lookup on it, so no answer mixes old and new data.
 */
export interface IpData {
  readonly location?: LocationReader;
  readonly network?: NetworkReader & { lookupNetworkAddress?(address: IpAddress): Network | undefined };
  readonly anonymity?: AnonymityReader;
  readonly connectionType?: ConnectionTypeReader;
  /** ASN -> prefixes, built from the loaded ASN data's networks. */
  readonly asnIndex?: AsnIndex;
  readonly feeds: SecurityFeeds;
  /** Which feeds are loaded (those absent answer nothing, and their indicators are omitted). */
  readonly feedsLoaded: ReadonlySet<FeedName>;
  /** What is loaded, from where: for /readyz and the logs. */
  readonly loaded: readonly LoadedPart[];
  /** Each loaded database and feed with its age and size (netinfo_data_age_seconds, netinfo_data_entries). */
  readonly sources?: readonly SourceFacts[];
  /** How old each loaded source is, for /readyz: the databases' build dates, the feeds' downloads. */
  readonly ages: readonly SourceAge[];
  /** What went wrong while loading (the part was left out, an older copy kept, or served from memory). */
  readonly problems: readonly string[];
  /** What was repaired while loading (a damaged cache rebuilt): logged, but the data is whole. */
  readonly repairs?: readonly string[];
  /** The credit the loaded data's licences ask for, for the X-Data-Attribution header. */
  readonly attribution: string;
  /** Loaded parts by file identity, so a reload reuses what did not change. */
  readonly parts: ReadonlyMap<string, unknown>;
}

const FEED_NAMES = ['tor', 'vpn', 'vpn-asn', 'datacenter', 'datacenter-asn', 'proxy'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

export interface SourceAge {
  /** `city`, `asn`, or a feed's source id (`tor`, `vpn-ipv4`, ..., `proxy`). */
  readonly source: string;
  /** `built` (a database's build date) or `downloaded` (when the updater installed a feed). */
  readonly kind: 'built' | 'downloaded';
  readonly at: string;
  readonly origin: LoadedPart['origin'];
}

export interface LoadedPart {
  readonly part: 'location' | 'network' | 'anonymity' | 'connection-type' | 'feeds';
  readonly origin: 'operator' | 'downloaded' | 'embedded';
  readonly description: string;
  readonly builtAt?: string;
  readonly entries?: number;
}

/** A database by its part (`location`, `network`, ...), a feed by its name (`tor`, `vpn-asn`, ...). */
export interface SourceFacts {
  readonly source: string;
  /** When it was built (a database's metadata) or downloaded (a feed file's time), ms since the epoch. */
  readonly updatedAt: number | null;
  readonly entries: number;
}

export interface IpDataOptions {
  dataDir: string;
  /** Where the embedded data's caches go (default DATA_DIR/ipinfo/embedded). */
  embeddedCacheDir?: string;
  geoipCityDb: string | null;
  geoipAsnDb: string | null;
  geoipAnonymousDb: string | null;
  geoipConnectionTypeDb: string | null;
  /** Feeds turned off (`FEED_*_URL=off`): a copy installed earlier is not used. */
  feedsOff?: readonly SourceId[];
  /** How the embedded data's caches are written (a test passes one that fails, as on a full disk). */
  writeEmbeddedCache?: CacheWriter;
}

type Attempt<T> = { value: T; part: LoadedPart } | { problem: string } | null;

/**
 * Loads every part from the best place it exists: an operator's file (GEOIP_*), else what
 * `npm run data:update` installed, else (City and ASN only) the embedded data. A part that fails
 * falls back to the next place, or — on a reload — keeps the copy already loaded.
 */
export async function loadIpData(options: IpDataOptions, previous?: IpData): Promise<IpData> {
  const paths = ipDataPaths(options.dataDir);
  const embeddedDir = options.embeddedCacheDir ?? paths.embedded;
  const parts = new Map<string, unknown>();
  const problems: string[] = [];
  const repairs: string[] = [];
  const loaded: LoadedPart[] = [];
  const reuse = async <T>(file: string, open: () => Promise<T>, key?: string): Promise<T> => {
    key ??= await identity(file);
    const value = (previous?.parts.get(key) as T | undefined) ?? (await open());
    parts.set(key, value);
    return value;
  };
  const embeddedOptions = options.writeEmbeddedCache ? { writeFile: options.writeEmbeddedCache } : {};
  /** Notes what happened to an embedded data set's cache. */
  const noteCache = (name: string, embedded: EmbeddedData<unknown>) => {
    if (embedded.rebuilt !== undefined) repairs.push(`${name}: ${embedded.rebuilt}`);
    if (embedded.uncached !== undefined) problems.push(`${name}: ${embedded.uncached}`);
  };
  const mmdb = <T>(file: string, create: (db: Buffer) => T) => reuse(file, async () => create(await readFile(file)));

  async function pick<T>(name: string, attempts: (() => Promise<Attempt<T>>)[], keep?: T): Promise<T | undefined> {
    const failures: string[] = [];
    for (const attempt of attempts) {
      const result = await attempt().catch((error: Error): Attempt<T> => ({ problem: error.message }));
      if (result === null) continue;
      if ('problem' in result) {
        failures.push(result.problem);
        continue;
      }
      if (failures.length > 0) problems.push(`${name}: ${failures.join('; ')}; using ${result.part.description}`);
      loaded.push(result.part);
      return result.value;
    }
    if (failures.length > 0) {
      problems.push(`${name}: ${failures.join('; ')}${keep === undefined ? '' : '; kept the copy loaded before'}`);
    }
    return keep;
  }

  const operator =
    <T extends { databaseType: string; buildEpoch: Date }>(
      file: string | null,
      part: LoadedPart['part'],
      create: (db: Buffer) => T,
    ) =>
    async (): Promise<Attempt<T>> => {
      if (file === null) return null;
      const value = await mmdb(file, create).catch((error: Error) => {
        throw new Error(`${file}: ${error.message}`);
      });
      return { value, part: describe(part, 'operator', value, file) };
    };
  const downloaded =
    <T extends { databaseType: string; buildEpoch: Date }>(
      file: string,
      part: LoadedPart['part'],
      create: (db: Buffer) => T,
    ) =>
    async (): Promise<Attempt<T>> => {
      const full = path.join(paths.downloads, file);
      if ((await identity(full)) === 'missing') return null;
      const value = await mmdb(full, create).catch((error: Error) => {
        throw new Error(`downloaded ${file}: ${error.message}`);
      });
      return { value, part: describe(part, 'downloaded', value, full) };
    };

  const [location, network, anonymity, connectionType, feeds] = await Promise.all([
    pick<LocationReader>(
      'City data',
      [
        operator(options.geoipCityDb, 'location', createLocationReader),
        downloaded('city.mmdb', 'location', createLocationReader),
        async () => {
          const embedded = await embeddedCityDatabase(embeddedDir, embeddedOptions);
          noteCache('City data', embedded);
          // The bytes whose checksum was just verified, not the file read again.
          const key =
            embedded.path === null ? `memory:GeoLite2-City-${embedded.version}` : await identity(embedded.path);
          const value = await reuse('', async () => createLocationReader(embedded.value), key);
          return { value, part: describe('location', 'embedded', value, `geolite2-city ${embedded.version}`) };
        },
      ],
      previous?.location,
    ),
    pick<IpData['network']>(
      'ASN data',
      [
        operator(options.geoipAsnDb, 'network', createNetworkReader),
        downloaded('asn.mmdb', 'network', createNetworkReader),
        async () => {
          const embedded = await embeddedAsnRanges(embeddedDir, embeddedOptions);
          noteCache('ASN data', embedded);
          return {
            value: embedded.ranges,
            part: describe('network', 'embedded', embedded.ranges, `@ip-location-db/asn ${embedded.version}`),
          };
        },
      ],
      previous?.network,
    ),
    pick(
      'Anonymous IP data',
      [operator(options.geoipAnonymousDb, 'anonymity', createAnonymityReader)],
      previous?.anonymity,
    ),
    pick(
      'Connection-Type data',
      [operator(options.geoipConnectionTypeDb, 'connection-type', createConnectionTypeReader)],
      previous?.connectionType,
    ),
    loadFeeds(paths.downloads, options.feedsOff ?? [], previous, parts, problems),
  ]);
  if (feeds.names.size > 0) {
    loaded.push({
      part: 'feeds',
      origin: 'downloaded',
      description: `security feeds: ${FEED_NAMES.filter((name) => feeds.names.has(name)).join(', ')}`,
    });
  }
  const asnIndex = asnIndexFor(network, previous);
  const sources: SourceFacts[] = loaded
    .filter((part) => part.part !== 'feeds')
    .map((part) => ({
      source: part.part,
      updatedAt: part.builtAt === undefined ? null : Date.parse(part.builtAt),
      entries: part.entries ?? 0,
    }));
  const ages: SourceAge[] = [];
  for (const [source, part] of [
    ['city', 'location'],
    ['asn', 'network'],
  ] as const) {
    const found = loaded.find((p) => p.part === part);
    if (found?.builtAt !== undefined) ages.push({ source, kind: 'built', at: found.builtAt, origin: found.origin });
  }
  const manifest = await readManifest(paths.manifest);
  for (const source of SOURCES) {
    const feed = FEED_OF[source.id];
    if (feed === undefined || !feeds.names.has(feed) || options.feedsOff?.includes(source.id)) continue;
    const at = manifest.sources[source.id]?.installedAt;
    if (at !== undefined && feeds.files.has(source.id)) {
      ages.push({ source: source.id, kind: 'downloaded', at, origin: 'downloaded' });
    }
  }
  return {
    ages,
    ...(location ? { location } : {}),
    ...(network ? { network } : {}),
    ...(asnIndex ? { asnIndex } : {}),
    ...(anonymity ? { anonymity } : {}),
    ...(connectionType ? { connectionType } : {}),
    feeds: feeds.feeds,
    feedsLoaded: feeds.names,
    loaded,
    sources: [...sources, ...feeds.sources],
    problems,
    ...(repairs.length > 0 ? { repairs } : {}),
    attribution: attributionFor(location, network),
    parts,
  };
}

/**
 * Built once per data load (about 0.2 s for the embedded data's half million rows; a MaxMind-format
 * database's tree is walked first), and kept by a reload that keeps the same ASN data.
 */
function asnIndexFor(network: IpData['network'], previous: IpData | undefined): AsnIndex | undefined {
  if (network === undefined || !('rows' in network)) return undefined;
  if (previous?.network === network && previous.asnIndex !== undefined) return previous.asnIndex;
  return buildAsnIndex((network as { rows: AsnRangeColumns }).rows);
}

const FEED_OF: Partial<Record<SourceId, FeedName>> = {
  tor: 'tor',
  'vpn-ipv4': 'vpn',
  'vpn-ipv6': 'vpn',
  'vpn-asn': 'vpn-asn',
  'datacenter-ipv4': 'datacenter',
  'datacenter-ipv6': 'datacenter',
  'datacenter-asn': 'datacenter-asn',
  proxy: 'proxy',
};

/** Parses the installed feeds; rebuilt only when one of the files changed since the last load. */
async function loadFeeds(
  downloads: string,
  off: readonly SourceId[],
  previous: IpData | undefined,
  parts: Map<string, unknown>,
  problems: string[],
): Promise<{
  feeds: SecurityFeeds;
  names: ReadonlySet<FeedName>;
  sources: readonly SourceFacts[];
  files: ReadonlySet<SourceId>;
}> {
  const files = SOURCES.filter((source) => FEED_OF[source.id] !== undefined && !off.includes(source.id));
  const identities = await Promise.all(files.map((source) => identity(path.join(downloads, source.file))));
  const key = `feeds|${identities.join('|')}`;
  const reused = previous?.parts.get(key) as
    | {
        feeds: SecurityFeeds;
        names: ReadonlySet<FeedName>;
        sources: readonly SourceFacts[];
        files: ReadonlySet<SourceId>;
      }
    | undefined;
  if (reused !== undefined) {
    parts.set(key, reused);
    return reused;
  }
  const cidrs: Record<'tor' | 'vpn' | 'datacenter' | 'proxy', Cidr[][]> = {
    tor: [],
    vpn: [],
    datacenter: [],
    proxy: [],
  };
  const asns: Record<'vpn-asn' | 'datacenter-asn', number[][]> = { 'vpn-asn': [], 'datacenter-asn': [] };
  const names = new Set<FeedName>();
  /** The feed files present, by source: what /readyz gives an age for. */
  const present = new Set<SourceId>(
    files.filter((_, index) => identities[index] !== 'missing').map((source) => source.id),
  );
  const facts = new Map<FeedName, { updatedAt: number | null; entries: number }>();
  const note = (feed: FeedName, file: string, entries: number) => {
    // The file's identity holds its modification time: when the updater installed it.
    const mtime = Number(file.split(':').at(-2));
    const known = facts.get(feed);
    const updatedAt = Number.isFinite(mtime) ? mtime : null;
    facts.set(feed, {
      updatedAt: known?.updatedAt != null && updatedAt !== null ? Math.min(known.updatedAt, updatedAt) : updatedAt,
      entries: (known?.entries ?? 0) + entries,
    });
  };
  await Promise.all(
    files.map(async (source, index) => {
      if (identities[index] === 'missing') return;
      const text = await readFile(path.join(downloads, source.file), 'utf8').catch((error: Error) => {
        problems.push(`${source.what}: ${error.message}`);
        return null;
      });
      if (text === null) return;
      const feed = FEED_OF[source.id] as FeedName;
      names.add(feed);
      if (feed === 'vpn-asn' || feed === 'datacenter-asn') {
        const listed = parseAsnList(text).entries.map((entry) => entry.asn);
        asns[feed].push(listed);
        note(feed, identities[index] as string, listed.length);
      } else {
        const listed = source.kind === 'tor-list' ? parseTorExitList(text).entries : parseCidrList(text).entries;
        cidrs[feed].push(listed);
        note(feed, identities[index] as string, listed.length);
      }
    }),
  );
  const data: SecurityFeedData = {
    torExits: cidrs.tor.flat(),
    vpnNetworks: cidrs.vpn.flat(),
    datacenterNetworks: cidrs.datacenter.flat(),
    proxyNetworks: cidrs.proxy.flat(),
    vpnAsns: asns['vpn-asn'].flat(),
    datacenterAsns: asns['datacenter-asn'].flat(),
  };
  const sources = [...facts].map(([source, { updatedAt, entries }]) => ({ source, updatedAt, entries }));
  const result = { feeds: buildSecurityFeeds(data), names, sources, files: present };
  parts.set(key, result);
  return result;
}

/** `path:size:mtime:inode`, or 'missing': changes whenever the file is replaced. */
async function identity(file: string): Promise<string> {
  try {
    const info = await stat(file);
    return `${file}:${info.size}:${info.mtimeMs}:${info.ino}`;
  } catch {
    return 'missing';
  }
}

function describe(
  part: LoadedPart['part'],
  origin: LoadedPart['origin'],
  reader: { databaseType: string; buildEpoch: Date; entries?: number },
  where: string,
): LoadedPart {
  return {
    part,
    origin,
    description: `${reader.databaseType} (${where})`,
    builtAt: reader.buildEpoch.toISOString(),
    ...(reader.entries === undefined ? {} : { entries: reader.entries }),
  };
}

const MAXMIND_CREDIT = 'GeoLite2 data created by MaxMind, available from https://www.maxmind.com';
const DBIP_CREDIT = 'IP Geolocation by DB-IP (https://db-ip.com)';

/** The credits the licences of the loaded data ask for (GeoLite2 EULA, CC BY 4.0 of DB-IP and RouteViews). */
function attributionFor(location?: LocationReader, network?: IpData['network']): string {
  const credits = new Set<string>();
  for (const reader of [location, network]) {
    if (reader === undefined) continue;
    if (/GeoLite/i.test(reader.databaseType)) credits.add(MAXMIND_CREDIT);
    if (/DBIP|DB-IP/i.test(reader.databaseType)) credits.add(DBIP_CREDIT);
    if (reader === network && 'ipv4Rows' in (reader as AsnRanges)) {
      credits.add('ASN data from RouteViews (https://www.routeviews.org) and the NRO (https://www.nro.net)');
    }
  }
  return [...credits].join('; ');
}
