import { formatCidr } from '../../net/cidr.ts';
import { type IpAddress, parseIp, unmapIpv4 } from '../../net/ip-address.ts';
import type { AsnRow } from './asn-csv.ts';
import type { Network, NetworkReader } from './network.ts';

/**
 * ASN data from sorted, disjoint ranges, kept in one binary blob: typed-array columns, so a lookup
 * is a binary search and loading is a file read with no parsing. Parsing the CSV (half a million
 * rows) takes about a second; reading the blob takes milliseconds, which is what keeps startup
 * within the readiness target. The blob is a cache: it is rebuilt from the CSV whenever it is
 * missing, of another format version, or inconsistent.
 *
 * Layout (native byte order, checked by a marker; every column 8-byte aligned):
 *   header  magic 'NIASN\0\0\x01', u32 marker, u32 ipv4 rows, u32 ipv6 rows, u32 names, u32 name bytes, u32 0
 *   ipv4    first u32[], last u32[], asn u32[], name u32[]
 *   ipv6    first hi u64[], first lo u64[], last hi u64[], last lo u64[], asn u32[], name u32[]
 *   names   offsets u32[names + 1], UTF-8 bytes
 */
const MAGIC = Buffer.from('NIASN\0\0\x01', 'latin1');
const BYTE_ORDER_MARKER = 0x01020304;
const HEADER_BYTES = 32;

export interface AsnRangeSource {
  ipv4: readonly AsnRow<number>[];
  ipv6: readonly AsnRow<bigint>[];
}

export interface AsnRanges extends NetworkReader {
  readonly ipv4Rows: number;
  readonly ipv6Rows: number;
  lookupNetworkAddress(address: IpAddress): Network | undefined;
  /** The rows as columns (read-only), for the ASN -> prefixes index (asn-index.ts). */
  readonly rows: AsnRangeColumns;
}

export interface AsnRangeColumns {
  readonly first4: Uint32Array;
  readonly last4: Uint32Array;
  readonly asn4: Uint32Array;
  readonly firstHi: BigUint64Array;
  readonly firstLo: BigUint64Array;
  readonly lastHi: BigUint64Array;
  readonly lastLo: BigUint64Array;
  readonly asn6: Uint32Array;
  /** The organisation of IPv4 row `i` (`version` 4) or IPv6 row `i`. */
  organisation(version: 4 | 6, i: number): string;
}

interface Layout {
  n4: number;
  n6: number;
  names: number;
  nameBytes: number;
  offsets: Record<
    | 'first4'
    | 'last4'
    | 'asn4'
    | 'name4'
    | 'firstHi'
    | 'firstLo'
    | 'lastHi'
    | 'lastLo'
    | 'asn6'
    | 'name6'
    | 'nameOffsets'
    | 'nameText',
    number
  >;
  total: number;
}

function layoutOf(n4: number, n6: number, names: number, nameBytes: number): Layout {
  let at = HEADER_BYTES;
  const take = (bytes: number) => {
    const start = at;
    at = Math.ceil((at + bytes) / 8) * 8;
    return start;
  };
  const offsets = {
    first4: take(4 * n4),
    last4: take(4 * n4),
    asn4: take(4 * n4),
    name4: take(4 * n4),
    firstHi: take(8 * n6),
    firstLo: take(8 * n6),
    lastHi: take(8 * n6),
    lastLo: take(8 * n6),
    asn6: take(4 * n6),
    name6: take(4 * n6),
    nameOffsets: take(4 * (names + 1)),
    nameText: take(nameBytes),
  };
  return { n4, n6, names, nameBytes, offsets, total: at };
}

/** Serialises rows (sorted and disjoint, as parseAsnCsvIpv4/Ipv6 return them) into the blob. */
export function encodeAsnRanges(source: AsnRangeSource, dataBuildTime: Date): Buffer {
  const nameIndex = new Map<string, number>();
  const nameList: Buffer[] = [];
  const indexOf = (name: string) => {
    let index = nameIndex.get(name);
    if (index === undefined) {
      index = nameList.length;
      nameIndex.set(name, index);
      nameList.push(Buffer.from(name, 'utf8'));
    }
    return index;
  };
  const name4 = source.ipv4.map((row) => indexOf(row.organisation));
  const name6 = source.ipv6.map((row) => indexOf(row.organisation));
  const nameBytes = nameList.reduce((sum, bytes) => sum + bytes.length, 0);
  const layout = layoutOf(source.ipv4.length, source.ipv6.length, nameList.length, nameBytes);
  const blob = Buffer.alloc(layout.total);
  MAGIC.copy(blob, 0);
  const header = new Uint32Array(blob.buffer, blob.byteOffset + 8, 6);
  header.set([
    BYTE_ORDER_MARKER,
    layout.n4,
    layout.n6,
    layout.names,
    layout.nameBytes,
    Math.floor(dataBuildTime.getTime() / 1000),
  ]);
  const columns = viewColumns(blob, layout);
  source.ipv4.forEach((row, i) => {
    columns.first4[i] = row.first;
    columns.last4[i] = row.last;
    columns.asn4[i] = row.asn;
    columns.name4[i] = name4[i] as number;
  });
  const low64 = (1n << 64n) - 1n;
  source.ipv6.forEach((row, i) => {
    columns.firstHi[i] = row.first >> 64n;
    columns.firstLo[i] = row.first & low64;
    columns.lastHi[i] = row.last >> 64n;
    columns.lastLo[i] = row.last & low64;
    columns.asn6[i] = row.asn;
    columns.name6[i] = name6[i] as number;
  });
  let textAt = 0;
  nameList.forEach((bytes, i) => {
    columns.nameOffsets[i] = textAt;
    bytes.copy(blob, layout.offsets.nameText + textAt);
    textAt += bytes.length;
  });
  columns.nameOffsets[nameList.length] = textAt;
  return blob;
}

function viewColumns(blob: Buffer, layout: Layout) {
  const { buffer, byteOffset } = blob;
  const u32 = (offset: number, length: number) => new Uint32Array(buffer, byteOffset + offset, length);
  const u64 = (offset: number, length: number) => new BigUint64Array(buffer, byteOffset + offset, length);
  const { offsets: o, n4, n6 } = layout;
  return {
    first4: u32(o.first4, n4),
    last4: u32(o.last4, n4),
    asn4: u32(o.asn4, n4),
    name4: u32(o.name4, n4),
    firstHi: u64(o.firstHi, n6),
    firstLo: u64(o.firstLo, n6),
    lastHi: u64(o.lastHi, n6),
    lastLo: u64(o.lastLo, n6),
    asn6: u32(o.asn6, n6),
    name6: u32(o.name6, n6),
    nameOffsets: u32(o.nameOffsets, layout.names + 1),
  };
}

/** Opens a blob; throws when it is not one of this format (the caller then rebuilds it). */
export function decodeAsnRanges(input: Buffer): AsnRanges {
  // Typed arrays need aligned offsets; a Buffer from the pool may not start on 8 bytes.
  const blob = input.byteOffset % 8 === 0 ? input : Buffer.from(input);
  if (blob.length < HEADER_BYTES || !blob.subarray(0, 8).equals(MAGIC)) throw new Error('not an ASN range blob');
  const [marker, n4, n6, names, nameBytes, builtAt] = new Uint32Array(blob.buffer, blob.byteOffset + 8, 6);
  if (marker !== BYTE_ORDER_MARKER) throw new Error('ASN range blob written with another byte order');
  const layout = layoutOf(n4 as number, n6 as number, names as number, nameBytes as number);
  if (layout.total !== blob.length) throw new Error(`ASN range blob is ${blob.length} bytes, expected ${layout.total}`);
  const c = viewColumns(blob, layout);
  const nameCache: (string | undefined)[] = new Array(layout.names);
  const nameAt = (index: number): string => {
    let name = nameCache[index];
    if (name === undefined) {
      const start = layout.offsets.nameText + (c.nameOffsets[index] as number);
      const end = layout.offsets.nameText + (c.nameOffsets[index + 1] as number);
      name = blob.toString('utf8', start, end);
      nameCache[index] = name;
    }
    return name;
  };
  const low64 = (1n << 64n) - 1n;
  const byFirst16 = first16Index(c.first4);

  function lookupNetworkAddress(address: IpAddress): Network | undefined {
    if (address.version === 4) {
      const i = lastAtOrBelowIndexed(c.first4, byFirst16, address.value);
      if (i < 0 || (c.last4[i] as number) < address.value) return undefined;
      return network(
        c.asn4[i] as number,
        nameAt(c.name4[i] as number),
        rangeRoute(4, c.first4[i] as number, c.last4[i] as number),
      );
    }
    const hi = address.value >> 64n;
    const lo = address.value & low64;
    const i = lastPairAtOrBelow(c.firstHi, c.firstLo, hi, lo);
    if (i < 0) return undefined;
    const lastHi = c.lastHi[i] as bigint;
    if (lastHi < hi || (lastHi === hi && (c.lastLo[i] as bigint) < lo)) return undefined;
    const first = ((c.firstHi[i] as bigint) << 64n) | (c.firstLo[i] as bigint);
    const last = (lastHi << 64n) | (c.lastLo[i] as bigint);
    return network(c.asn6[i] as number, nameAt(c.name6[i] as number), rangeRoute(6, first, last));
  }

  return {
    databaseType: 'ip-location-db ASN (RouteViews, RIR delegations, DB-IP ASN Lite)',
    buildEpoch: new Date((builtAt as number) * 1000),
    ipv4Rows: layout.n4,
    ipv6Rows: layout.n6,
    entries: layout.n4 + layout.n6,
    lookupNetworkAddress,
    rows: {
      first4: c.first4,
      last4: c.last4,
      asn4: c.asn4,
      firstHi: c.firstHi,
      firstLo: c.firstLo,
      lastHi: c.lastHi,
      lastLo: c.lastLo,
      asn6: c.asn6,
      organisation: (version, i) => nameAt((version === 4 ? c.name4[i] : c.name6[i]) as number),
    },
    lookupNetwork(ip) {
      const address = parseIp(ip);
      return address === null ? undefined : lookupNetworkAddress(unmapIpv4(address));
    },
  };
}

function network(asn: number, organisation: string, route: string | undefined): Network {
  const answer: Network = { asn: `AS${asn}`, asnNumber: asn };
  if (organisation !== '') answer.provider = organisation;
  if (route !== undefined) answer.route = route;
  return answer;
}

/**
 * The range as a CIDR when it is exactly one (the usual case: an announced prefix); undefined
 * otherwise, because the data merges neighbouring prefixes of one AS and the merged range is
 * then no prefix anyone announced.
 */
function rangeRoute(version: 4 | 6, first: number | bigint, last: number | bigint): string | undefined {
  if (version === 4) {
    const size = (last as number) - (first as number) + 1;
    if (!Number.isInteger(Math.log2(size)) || (first as number) % size !== 0) return undefined;
    return formatCidr({ version: 4, first: first as number, last: last as number, prefixLength: 32 - Math.log2(size) });
  }
  const size = (last as bigint) - (first as bigint) + 1n;
  if ((size & (size - 1n)) !== 0n || (first as bigint) % size !== 0n) return undefined;
  const prefixLength = 128 - (size.toString(2).length - 1);
  return formatCidr({ version: 6, first: first as bigint, last: last as bigint, prefixLength });
}

/**
 * For each first 16 bits p, how many rows start below p.0.0: the rows an address can fall in lie
 * between two neighbours, so its search covers a few rows instead of 19 steps over 500,000 (each a
 * cache miss for a new address: 5% of a batch item's profile). 256 KB.
 */
function first16Index(first4: Uint32Array): Uint32Array {
  const index = new Uint32Array(65537);
  let row = 0;
  for (let p = 0; p <= 65536; p++) {
    while (row < first4.length && (first4[row] as number) < p * 65536) row++;
    index[p] = row;
  }
  return index;
}

/** lastAtOrBelow(first4, value), searched only among the rows that start in value's /16. */
function lastAtOrBelowIndexed(first4: Uint32Array, byFirst16: Uint32Array, value: number): number {
  const p = value >>> 16;
  let low = byFirst16[p] as number;
  let high = (byFirst16[p + 1] as number) - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((first4[mid] as number) <= value) low = mid + 1;
    else high = mid - 1;
  }
  return high;
}

/** As lastAtOrBelow, over 128-bit keys held as (high, low) 64-bit columns. */
function lastPairAtOrBelow(his: BigUint64Array, los: BigUint64Array, hi: bigint, lo: bigint): number {
  let low = 0;
  let high = his.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const midHi = his[mid] as bigint;
    if (midHi < hi || (midHi === hi && (los[mid] as bigint) <= lo)) low = mid + 1;
    else high = mid - 1;
  }
  return high;
}
