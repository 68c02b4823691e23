import {
  type AnonymousIPResponse,
  type AsnResponse,
  type CityResponse,
  type ConnectionTypeResponse,
  type IspResponse,
  Reader,
  type Response,
} from 'maxmind';
import { createGenerationalMap } from '../../cache/generational-map.ts';
import { cidrOf, formatCidr } from '../../net/cidr.ts';
import { formatIp, type IpAddress, parseIp, unmapIpv4 } from '../../net/ip-address.ts';
import type { AsnRangeColumns } from './asn-ranges.ts';
import type { CityAnswer, Location } from './city-record.ts';
import { cityRecords } from './city-record.ts';

export type { CityAnswer, Location, LocationTraits } from './city-record.ts';

import { mmdbAsnRows } from './mmdb-networks.ts';
import { MmdbReader } from './mmdb-reader.ts';
import type { NetworkReader } from './network.ts';

/**
 * Readers over MaxMind-format databases (GeoIP2 / GeoLite2 schema). Each is built from a Buffer, so
 * the caller owns loading and can swap a refreshed database by building a new reader. A reader
 * checks the database type once, at construction, so a City file given where an ASN file belongs
 * fails at startup rather than answering every request with nothing.
 *
 * Lookups take text and return undefined for input that is not an IP literal (mmdb-lib itself
 * would answer garbage such as `bad` with a record for 0.0.0.0/8), for an IPv6 address in an
 * IPv4-only database, and when the database has no record. `::ffff:a.b.c.d` is looked up as
 * a.b.c.d, so the route comes back as an IPv4 prefix.
 */

export interface AnonymityFlags {
  anonymous: boolean;
  vpn: boolean;
  hosting: boolean;
  publicProxy: boolean;
  residentialProxy: boolean;
  tor: boolean;
}

/** What only the ifconfig.co face shows (src/text/echoip-answer.ts); kept out of lookupCity, the /json hot path. */
export interface Registration {
  /** Where the network is registered: ifconfig.co's country when the record has no `country`. */
  registeredCountry?: string;
  registeredCountryCode?: string;
  inEuropeanUnion: boolean;
  /** The US metro (DMA) code. */
  metroCode?: number;
}

export interface LocationReader {
  readonly databaseType: string;
  /** When the database was built (its metadata), for readiness reports and update checks. */
  readonly buildEpoch: Date;
  /** Size of the data: nodes in the database's search tree (the MaxMind format counts no networks). */
  readonly entries?: number;
  lookupLocation(ip: string): Location | undefined;
  /** The location and the traits in one tree walk. */
  lookupCity(ip: string): CityAnswer | undefined;
  /** lookupCity of an address already parsed (and unmapped). */
  lookupCityAddress?(address: IpAddress): CityAnswer | undefined;
  lookupRegistration(ip: string): Registration | undefined;
}

export interface AnonymityReader {
  readonly databaseType: string;
  readonly buildEpoch: Date;
  /** Size of the data: nodes in the database's search tree (the MaxMind format counts no networks). */
  readonly entries?: number;
  /** False for an IPv4-only database: it knows nothing about IPv6 addresses. */
  readonly coversIpv6: boolean;
  /** All false when the database has no record: MaxMind lists only anonymous networks. */
  lookupAnonymity(ip: string): AnonymityFlags | undefined;
}

export interface ConnectionTypeReader {
  readonly databaseType: string;
  readonly buildEpoch: Date;
  /** Size of the data: nodes in the database's search tree (the MaxMind format counts no networks). */
  readonly entries?: number;
  /** MaxMind's value as is: 'Cable/DSL', 'Cellular', 'Corporate', 'Satellite', 'Dialup'. */
  lookupConnectionType(ip: string): string | undefined;
}

/**
 * Answers by record: networks share records (1,000 addresses drawn over the whole IPv4 space hit
 * 480 records of GeoLite2 City, 100,000 hit 28,680), so a repeat costs a map lookup. An answer is
 * a few hundred bytes (mmdb-lib's cache held 5,000 whole records of a few kilobytes). Answers are
 * shared: callers only read them.
 */
const RECORDS_KEPT = 20_000;

/** GeoIP2/GeoLite2 City or Country, DB-IP City/Country Lite, or GeoIP2 Enterprise (a superset of City). */
export function createLocationReader(db: Uint8Array): LocationReader {
  const reader = new MmdbReader(db);
  const { databaseType, buildEpoch, nodeCount } = reader.metadata;
  checkType(databaseType, /(City|Country|Enterprise)/, 'a City or Country database');
  const readCity = cityRecords(reader);
  const answers = createGenerationalMap<number, CityAnswer>(RECORDS_KEPT);
  const answerAt = (offset: number) => {
    let answer = answers.get(offset);
    if (answer === undefined) {
      answer = readCity(offset);
      answers.set(offset, answer);
    }
    return answer;
  };
  const find = (ip: string) => {
    const parsed = parseIp(ip);
    return parsed === null ? undefined : reader.find(unmapIpv4(parsed));
  };
  const lookupCityAddress = (address: IpAddress) => {
    const found = reader.find(address);
    return found === undefined ? undefined : answerAt(found.offset);
  };
  const lookupCity = (ip: string) => {
    const found = find(ip);
    return found === undefined ? undefined : answerAt(found.offset);
  };
  return {
    databaseType,
    buildEpoch,
    entries: nodeCount,
    lookupCity,
    lookupCityAddress,
    lookupLocation: (ip) => lookupCity(ip)?.location,
    lookupRegistration(ip) {
      const found = find(ip);
      if (found === undefined) return undefined;
      // Only the ifconfig.co face asks: the whole record decoded is fine here.
      const record = reader.decode(found.offset) as CityResponse;
      return {
        ...withoutUndefined({
          registeredCountry: record.registered_country?.names?.en,
          registeredCountryCode: record.registered_country?.iso_code,
          metroCode: record.location?.metro_code,
        }),
        inEuropeanUnion: record.country?.is_in_european_union === true,
      };
    },
  };
}

/**
 * GeoLite2-ASN, or GeoIP2-ISP (which adds the ISP name). `rows` lists every network, for the
 * ASN -> prefixes index: read from the tree when first asked (once per loaded database).
 */
export function createNetworkReader(db: Buffer): NetworkReader & { readonly rows: AsnRangeColumns } {
  const query = openDatabase<AsnResponse & Partial<IspResponse>>(db, /(ASN|ISP)/, 'an ASN or ISP database');
  let rows: AsnRangeColumns | undefined;
  return {
    get rows() {
      rows ??= mmdbAsnRows(db, query.reader as Reader<Response>);
      return rows;
    },
    databaseType: query.databaseType,
    buildEpoch: query.buildEpoch,
    entries: query.reader.metadata.nodeCount,
    lookupNetwork(ip) {
      const found = query.lookup(ip);
      if (found === undefined) return undefined;
      const { record, route } = found;
      const asnNumber = record.autonomous_system_number;
      return withoutUndefined({
        provider:
          nonEmpty(record.isp) ?? nonEmpty(record.autonomous_system_organization) ?? nonEmpty(record.organization),
        asn: asnNumber === undefined ? undefined : `AS${asnNumber}`,
        asnNumber,
        route,
      });
    },
  };
}

export function createAnonymityReader(db: Buffer): AnonymityReader {
  const query = openDatabase<AnonymousIPResponse>(db, /Anonymous/, 'an Anonymous-IP database');
  return {
    databaseType: query.databaseType,
    buildEpoch: query.buildEpoch,
    entries: query.reader.metadata.nodeCount,
    coversIpv6: query.coversIpv6,
    lookupAnonymity(ip) {
      const address = parseIp(ip);
      if (address === null || !query.answers(address)) return undefined;
      const record = query.lookup(ip)?.record ?? {};
      return {
        anonymous: record.is_anonymous === true,
        vpn: record.is_anonymous_vpn === true,
        hosting: record.is_hosting_provider === true,
        publicProxy: record.is_public_proxy === true,
        residentialProxy: record.is_residential_proxy === true,
        tor: record.is_tor_exit_node === true,
      };
    },
  };
}

export function createConnectionTypeReader(db: Buffer): ConnectionTypeReader {
  const query = openDatabase<ConnectionTypeResponse>(db, /Connection-Type/, 'a Connection-Type database');
  return {
    databaseType: query.databaseType,
    buildEpoch: query.buildEpoch,
    entries: query.reader.metadata.nodeCount,
    lookupConnectionType: (ip) => nonEmpty(query.lookup(ip)?.record.connection_type),
  };
}

type Found<T> = { record: T; route: string };

interface DatabaseQuery<T extends Response> {
  readonly reader: Reader<T>;
  readonly databaseType: string;
  readonly buildEpoch: Date;
  readonly coversIpv6: boolean;
  /** False for an IPv6 address in an IPv4-only database. */
  answers(address: IpAddress): boolean;
  lookup(ip: string): Found<T> | undefined;
}

function openDatabase<T extends Response>(db: Buffer, expectedType: RegExp, expected: string): DatabaseQuery<T> {
  const reader = new Reader<T>(db, { cache: boundedCache(DECODED_RECORDS_KEPT) });
  const { databaseType, ipVersion, buildEpoch } = reader.metadata;
  checkType(databaseType, expectedType, expected);
  const answers = (address: IpAddress) => address.version === 4 || ipVersion === 6;
  return {
    reader,
    databaseType,
    buildEpoch,
    coversIpv6: ipVersion === 6,
    answers,
    lookup(ip) {
      const parsed = parseIp(ip);
      if (parsed === null) return undefined;
      const address = unmapIpv4(parsed);
      if (!answers(address)) return undefined;
      // For an IPv4 query mmdb-lib starts at the IPv4 subtree, so the length is relative to 32 bits.
      const [record, prefixLength] = reader.getWithPrefixLength(formatIp(address));
      if (record === null) return undefined;
      return { record, route: formatCidr(cidrOf(address, prefixLength)) };
    },
  };
}

/**
 * Decoded records by data-section offset. Many addresses share one record (every address of a
 * city), and decoding a City record (names in eight languages) costs more than the tree walk, so
 * a small cache removes most of a lookup's cost. Small, because a decoded City record takes a few
 * kilobytes. Records are shared: callers only read them.
 */
const DECODED_RECORDS_KEPT = 5_000;

function boundedCache(max: number) {
  const entries = new Map<string | number, unknown>();
  return {
    get: (key: string | number) => entries.get(key),
    set(key: string | number, value: unknown) {
      // Dropping everything when full is cruder than LRU but costs nothing per hit, and the
      // working set refills in a few thousand lookups.
      if (entries.size >= max) entries.clear();
      entries.set(key, value);
    },
  };
}

function checkType(databaseType: string, expectedType: RegExp, expected: string): void {
  if (!expectedType.test(databaseType)) throw new Error(`expected ${expected}, got database type '${databaseType}'`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function withoutUndefined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
