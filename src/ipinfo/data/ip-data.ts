import path from 'node:path';
import type { IpAddress } from '../../net/ip-address.ts';
import type { VrpSet } from '../../rpki/vrp-set.ts';
import { type AsnIndex, buildAsnIndex } from './asn-index.ts';
import type { AsnRanges } from './asn-ranges.ts';
import { ipDataPaths, type ReadBytes, readManifest, readWholeFile, type SourceId, stampOf } from './data-files.ts';
import type { DatabasePart, DatabaseSource, DataSource, FeedName } from './data-sources.ts';
import {
  type CacheWriter,
  type EmbeddedData,
  embeddedAsnRanges,
  embeddedCacheFile,
  embeddedCityDatabase,
} from './embedded-data.ts';
import { feedSources, type LoadedFeeds, loadFeeds } from './feed-files.ts';
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
import type { SecurityFeeds } from './security-feeds.ts';
import { type LoadedVrps, loadVrps } from './vrp-files.ts';

export type { DataSource, FeedName } from './data-sources.ts';

type NetworkData = NetworkReader & { lookupNetworkAddress?(address: IpAddress): Network | undefined };

/**
 * One complete, immutable set of IP data. The store swaps whole snapshots, and a request takes
 * one snapshot and does every lookup on it, so no answer mixes old and new data.
 */
export interface IpData {
  readonly location?: LocationReader;
  readonly network?: NetworkData;
  readonly anonymity?: AnonymityReader;
  readonly connectionType?: ConnectionTypeReader;
  readonly asnIndex?: AsnIndex;
  readonly feeds: SecurityFeeds;
  /** The RPKI VRP set, when one is installed (and not turned off). */
  readonly rpki?: VrpSet;
  /** Feeds absent from this set answer nothing, and their indicators are omitted. */
  readonly feedsLoaded: ReadonlySet<FeedName>;
  readonly sources: readonly DataSource[];
  /** What went wrong while loading (the part was left out, an older copy kept, or served from memory). */
  readonly problems: readonly string[];
  /** What was repaired while loading (a damaged cache rebuilt): logged, but the data is whole. */
  readonly repairs?: readonly string[];
  /** The credit the loaded data's licences ask for, for the X-Data-Attribution header. */
  readonly attribution: string;
  /** What a reload keeps when the files it was read from did not change. */
  readonly kept: KeptParts;
}

interface Kept<T> {
  /** The stamp key of the file it was read from. */
  readonly key: string;
  readonly value: T;
}

export interface KeptParts {
  readonly location?: Kept<LocationReader> | undefined;
  readonly network?: Kept<NetworkData> | undefined;
  readonly anonymity?: Kept<AnonymityReader> | undefined;
  readonly 'connection-type'?: Kept<ConnectionTypeReader> | undefined;
  readonly feeds?: LoadedFeeds;
  readonly rpki?: LoadedVrps | undefined;
}

type Reader = { databaseType: string; buildEpoch: Date; entries?: number };

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
  /** The VRP set comes from RPKI_VRP_FILE (the operator's validator), not a download. */
  rpkiFromOperator?: boolean;
  /** How the embedded data's caches are written (a test passes one that fails, as on a full disk). */
  writeEmbeddedCache?: CacheWriter;
  /** How database files are read (default readFile; worker threads get the supervisor's shared copy). */
  readBytes?: ReadBytes;
}

/** A part read; `key`, when it has one, is what a reload compares to keep it. */
type Read<T> = { value: T; key?: string };
type Attempt<T> = (Read<T> & { source: DatabaseSource }) | { problem: string } | null;

/**
 * Loads every part from the best place it exists: an operator's file (GEOIP_*), else what
 * `npm run data:update` installed, else (City and ASN only) the embedded data. A part that fails
 * falls back to the next place, or — on a reload — keeps the copy already loaded.
 */
export async function loadIpData(options: IpDataOptions, previous?: IpData): Promise<IpData> {
  const paths = ipDataPaths(options.dataDir);
  const embeddedDir = options.embeddedCacheDir ?? paths.embedded;
  const problems: string[] = [];
  const repairs: string[] = [];
  const databases: DatabaseSource[] = [];
  const reuse = async <T>(old: Kept<T> | undefined, key: string, open: () => Promise<T>): Promise<Read<T>> => ({
    key,
    value: old?.key === key ? old.value : await open(),
  });
  const readBytes = options.readBytes ?? readWholeFile;
  const embeddedOptions = {
    ...(options.writeEmbeddedCache ? { writeFile: options.writeEmbeddedCache } : {}),
    ...(options.readBytes ? { readBytes: options.readBytes } : {}),
  };
  const noteCache = (name: string, embedded: EmbeddedData<unknown>) => {
    if (embedded.rebuilt !== undefined) repairs.push(`${name}: ${embedded.rebuilt}`);
    if (embedded.uncached !== undefined) problems.push(`${name}: ${embedded.uncached}`);
  };

  async function pick<T>(
    name: string,
    attempts: (() => Promise<Attempt<T>>)[],
    keep?: T,
  ): Promise<Read<T> | undefined> {
    const failures: string[] = [];
    for (const attempt of attempts) {
      const result = await attempt().catch((error: Error): Attempt<T> => ({ problem: error.message }));
      if (result === null) continue;
      if ('problem' in result) {
        failures.push(result.problem);
        continue;
      }
      if (failures.length > 0) problems.push(`${name}: ${failures.join('; ')}; using ${result.source.description}`);
      databases.push(result.source);
      return result;
    }
    if (failures.length > 0) {
      problems.push(`${name}: ${failures.join('; ')}${keep === undefined ? '' : '; kept the copy loaded before'}`);
    }
    return keep === undefined ? undefined : { value: keep };
  }

  /** A MaxMind-format file: the operator's (none when `file` is null) or the one the updater installed. */
  const mmdbFile =
    <T extends Reader>(
      file: string | null,
      part: DatabasePart,
      old: Kept<T> | undefined,
      create: (db: Buffer) => T,
      installed = false,
    ) =>
    async (): Promise<Attempt<T>> => {
      if (file === null) return null;
      const stamp = await stampOf(file);
      if (installed && stamp === undefined) return null;
      const read = await reuse(old, stamp?.key ?? 'missing', async () => create(await readBytes(file))).catch(
        (error: Error) => {
          throw new Error(`${installed ? `downloaded ${path.basename(file)}` : file}: ${error.message}`);
        },
      );
      return { ...read, source: describe(part, installed ? 'downloaded' : 'operator', read.value, file) };
    };
  const installed = (file: string) => path.join(paths.downloads, file);
  /** The embedded part loaded before, when its cache file is the one it was read from (a reload reads nothing). */
  const keptEmbedded = async <T>(kind: 'city' | 'asn', old: Kept<T> | undefined) => {
    if (old === undefined) return undefined;
    const { pkg, target } = await embeddedCacheFile(embeddedDir, kind);
    const key = (await stampOf(target))?.key;
    return key === old.key ? { key, value: old.value, where: `${pkg.name} ${pkg.version}` } : undefined;
  };

  const [city, asn, anonymous, connection, feeds, manifest] = await Promise.all([
    pick<LocationReader>(
      'City data',
      [
        mmdbFile(options.geoipCityDb, 'location', previous?.kept.location, createLocationReader),
        mmdbFile(installed('city.mmdb'), 'location', previous?.kept.location, createLocationReader, true),
        async () => {
          const kept = await keptEmbedded('city', previous?.kept.location);
          if (kept) return { ...kept, source: describe('location', 'embedded', kept.value, kept.where) };
          const embedded = await embeddedCityDatabase(embeddedDir, embeddedOptions);
          noteCache('City data', embedded);
          // The bytes whose checksum was just verified, not the file read again.
          const key =
            embedded.path === null
              ? `memory:GeoLite2-City-${embedded.version}`
              : ((await stampOf(embedded.path))?.key ?? 'missing');
          const read = await reuse(previous?.kept.location, key, async () => createLocationReader(embedded.value));
          return { ...read, source: describe('location', 'embedded', read.value, `geolite2-city ${embedded.version}`) };
        },
      ],
      previous?.location,
    ),
    pick<NetworkData>(
      'ASN data',
      [
        mmdbFile<NetworkData>(options.geoipAsnDb, 'network', previous?.kept.network, createNetworkReader),
        mmdbFile<NetworkData>(installed('asn.mmdb'), 'network', previous?.kept.network, createNetworkReader, true),
        async () => {
          const kept = await keptEmbedded('asn', previous?.kept.network);
          if (kept) return { ...kept, source: describe('network', 'embedded', kept.value, kept.where) };
          const embedded = await embeddedAsnRanges(embeddedDir, embeddedOptions);
          noteCache('ASN data', embedded);
          const value = embedded.ranges;
          const key = embedded.path === null ? undefined : (await stampOf(embedded.path))?.key;
          return {
            value,
            ...(key === undefined ? {} : { key }),
            source: describe('network', 'embedded', value, `@ip-location-db/asn ${embedded.version}`),
          };
        },
      ],
      previous?.network,
    ),
    pick(
      'Anonymous IP data',
      [mmdbFile(options.geoipAnonymousDb, 'anonymity', previous?.kept.anonymity, createAnonymityReader)],
      previous?.anonymity,
    ),
    pick(
      'Connection-Type data',
      [
        mmdbFile(
          options.geoipConnectionTypeDb,
          'connection-type',
          previous?.kept['connection-type'],
          createConnectionTypeReader,
        ),
      ],
      previous?.connectionType,
    ),
    loadFeeds(paths.downloads, options.feedsOff ?? [], previous?.kept.feeds, problems),
    readManifest(paths.manifest),
  ]);
  const [location, network, anonymity, connectionType] = [city?.value, asn?.value, anonymous?.value, connection?.value];
  const rpki = await loadVrps(
    paths.downloads,
    { off: options.feedsOff?.includes('rpki') === true, operatorFile: options.rpkiFromOperator === true, readBytes },
    previous?.kept.rpki,
    manifest,
    problems,
  );
  const asnIndex = asnIndexFor(network, previous);
  return {
    ...(location ? { location } : {}),
    ...(network ? { network } : {}),
    ...(asnIndex ? { asnIndex } : {}),
    ...(anonymity ? { anonymity } : {}),
    ...(connectionType ? { connectionType } : {}),
    feeds: feeds.feeds,
    ...(rpki ? { rpki: rpki.set } : {}),
    feedsLoaded: feeds.names,
    sources: [...databases.sort(byPart), ...feedSources(feeds, manifest), ...(rpki ? [rpki.source] : [])],
    problems,
    ...(repairs.length > 0 ? { repairs } : {}),
    attribution: attributionFor(location, network),
    kept: {
      location: keptOf(city),
      network: keptOf(asn),
      anonymity: keptOf(anonymous),
      'connection-type': keptOf(connection),
      feeds,
      rpki,
    },
  };
}

/**
 * Built once per data load (about 0.2 s for the embedded data's half million rows; a MaxMind-format
 * database's tree is walked first), and kept by a reload that keeps the same ASN data.
 */
function asnIndexFor(network: NetworkData | undefined, previous: IpData | undefined): AsnIndex | undefined {
  if (network === undefined || !('rows' in network)) return undefined;
  if (previous?.network === network && previous.asnIndex !== undefined) return previous.asnIndex;
  return buildAsnIndex((network as AsnRanges).rows);
}

const PART_ORDER: readonly DatabasePart[] = ['location', 'network', 'anonymity', 'connection-type'];
/** In a fixed order, not the order the parts finished loading in. */
const byPart = (a: DatabaseSource, b: DatabaseSource) => PART_ORDER.indexOf(a.source) - PART_ORDER.indexOf(b.source);

function keptOf<T>(read: Read<T> | undefined): Kept<T> | undefined {
  return read?.key === undefined ? undefined : { key: read.key, value: read.value };
}

function describe(part: DatabasePart, origin: DatabaseSource['origin'], reader: Reader, where: string): DatabaseSource {
  return {
    kind: 'database',
    source: part,
    origin,
    description: `${reader.databaseType} (${where})`,
    updatedAt: reader.buildEpoch.getTime(),
    entries: reader.entries ?? 0,
  };
}

const MAXMIND_CREDIT = 'GeoLite2 data created by MaxMind, available from https://www.maxmind.com';
const DBIP_CREDIT = 'IP Geolocation by DB-IP (https://db-ip.com)';

/** The credits the licences of the loaded data ask for (GeoLite2 EULA, CC BY 4.0 of DB-IP and RouteViews). */
function attributionFor(location?: LocationReader, network?: NetworkData): string {
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
