import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SourceId } from '../../src/ipinfo/data/data-files.ts';
import { type Cidr, cidrOf, formatCidr, parseCidr } from '../../src/net/cidr.ts';
import { parseIp } from '../../src/net/ip-address.ts';

const sharedFixtures = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');
/** `NETINFO_TEST_FIXTURES=vendored` runs as a plain clone does, without ../shared. */
const sharedWanted = process.env.NETINFO_TEST_FIXTURES !== 'vendored';

/**
 * MaxMind's official test databases and the JSON they were built from: the shared, read-only copy
 * when it is beside the repository, otherwise the one vendored in test/fixtures/mmdb (the same
 * databases; the JSON cut down to the records of the addresses the tests look up).
 */
export const mmdbDir =
  sharedWanted && existsSync(path.join(sharedFixtures, 'mmdb'))
    ? path.join(sharedFixtures, 'mmdb')
    : path.resolve(import.meta.dirname, '..', 'fixtures', 'mmdb');
export const mmdbPath = (name: string) => path.join(mmdbDir, `${name}.mmdb`);
/** The skip reason of a test that reads a source JSON whole (the vendored copies are cut down), or false. */
export const fullMmdbSourcesSkip =
  mmdbDir === path.join(sharedFixtures, 'mmdb')
    ? false
    : `needs the whole source JSON of MaxMind's test databases in ${path.join(sharedFixtures, 'mmdb')}`;
export const mmdb = (name: string) => readFileSync(mmdbPath(name));
/**
 * What a reader answers for one scenario, `<database>.<address>.json` beside the vendored databases
 * (test/fixtures/mmdb): one record that every test of that lookup reads.
 */
export const mmdbScenario = (scenario: string): unknown =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'fixtures', 'mmdb', `${scenario}.json`), 'utf8'));

/** The real feed snapshots (shared, read-only; not vendored: 1 MB of address lists). */
export const feedDir = path.join(sharedFixtures, 'feeds');
export const feedFixturesPresent = sharedWanted && existsSync(feedDir);
/** The skip reason of a test that needs the feed snapshots. */
export const feedSkip = feedFixturesPresent ? false : `needs the feed snapshots in ${feedDir}`;

/** The snapshot file of each security feed, by the updater's source id. */
export const FEED_FILES = {
  tor: 'tor-exit-nodes.lst',
  'vpn-ipv4': 'x4bnet-vpn-ipv4.txt',
  'vpn-ipv6': 'x4bnet-vpn-ipv6.txt',
  'vpn-asn': 'x4bnet-vpn-ASN.txt',
  'datacenter-ipv4': 'x4bnet-datacenter-ipv4.txt',
  'datacenter-ipv6': 'x4bnet-datacenter-ipv6.txt',
  'datacenter-asn': 'x4bnet-datacenter-ASN.txt',
} as const satisfies Partial<Record<SourceId, string>>;

type Names = { en?: string };
/** The part of a City source record that a location answer is made of. */
export type CityJson = {
  city?: { names?: Names };
  continent?: { code?: string; names?: Names };
  country?: { iso_code?: string; names?: Names };
  location?: { latitude?: number; longitude?: number; accuracy_radius?: number; time_zone?: string };
  postal?: { code?: string };
  subdivisions?: { iso_code?: string; names?: Names }[];
};

/**
 * The location a reader and the route must give for `ip`, written out here from the JSON the City
 * test database `name` was built from (never through the product's own mapping); undefined when no
 * record holds the address. Fields the record lacks are left out.
 */
export function expectedLocation(name: string, ip: string): Record<string, unknown> | undefined {
  const record = expectedFromJson<CityJson>(name, ip)?.record;
  return record === undefined ? undefined : locationFields(record);
}

/** A City record's fields as a location answer names them, the absent (and empty) ones left out. */
export function locationFields(record: CityJson): Record<string, unknown> {
  const fields = {
    country: record.country?.names?.en,
    countryCode: record.country?.iso_code,
    city: record.city?.names?.en,
    continent: record.continent?.names?.en,
    continentCode: record.continent?.code,
    latitude: record.location?.latitude,
    longitude: record.location?.longitude,
    accuracyRadius: record.location?.accuracy_radius,
    timezone: record.location?.time_zone,
    postalCode: record.postal?.code,
    region: record.subdivisions?.[0]?.names?.en,
    regionCode: record.subdivisions?.[0]?.iso_code,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== ''));
}

const sources = new Map<string, Record<string, unknown>[]>();

/**
 * The oracle: the record of the most specific network in the source JSON containing `ip`, and that
 * network as a reader should report it (IPv4 networks are stored as `::a.b.c.d/len+96`).
 */
export function expectedFromJson<T>(name: string, ip: string): { record: T; route: string } | undefined {
  const address = parseIp(ip);
  assert.ok(address);
  let rows = sources.get(name);
  if (rows === undefined) {
    rows = JSON.parse(readFileSync(path.join(mmdbDir, `${name}.json`), 'utf8')) as Record<string, unknown>[];
    sources.set(name, rows);
  }
  let best: { cidr: Cidr; record: T } | undefined;
  for (const row of rows) {
    for (const [key, record] of Object.entries(row)) {
      const parsed = parseCidr(key);
      assert.ok(parsed.ok, key);
      const { cidr } = parsed;
      let contains: boolean;
      if (address.version === 4 && cidr.version === 6) {
        contains = cidr.prefixLength >= 96 && BigInt(address.value) >= cidr.first && BigInt(address.value) <= cidr.last;
      } else {
        contains = cidr.version === address.version && address.value >= cidr.first && address.value <= cidr.last;
      }
      const length = address.version === 4 && cidr.version === 6 ? cidr.prefixLength - 96 : cidr.prefixLength;
      if (contains && (best === undefined || length > best.cidr.prefixLength)) {
        best = { cidr: cidrOf(address, length), record: record as T };
      }
    }
  }
  return best && { record: best.record, route: formatCidr(best.cidr) };
}
