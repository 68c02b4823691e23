import type { Cidr } from '../net/cidr.ts';
import { EMPTY_FAMILY, type VrpFamily, type VrpSet } from './vrp-set.ts';

/**
 * The installed VRP set: the typed arrays of vrp-set.ts, one after the other, behind a header. The
 * updater writes it once per download (in its child process, where the JSON is parsed); the service
 * reads the file and views its bytes in place, so loading a million VRPs copies nothing and parses
 * nothing, and the JSON's transient hundreds of megabytes never enter the serving process.
 */
const MAGIC = 'NIVRPS01';
const HEADER_BYTES = 32;

export interface VrpEntry {
  readonly cidr: Cidr;
  readonly maxLength: number;
  readonly asn: number;
}

interface Sorted {
  readonly first: bigint;
  readonly length: number;
  readonly asn: number;
  readonly maxLength: number;
}

function familyOf(entries: readonly VrpEntry[], version: 4 | 6): Sorted[] {
  const sorted = entries
    .filter((entry) => entry.cidr.version === version)
    .map((entry) => ({
      first: BigInt(entry.cidr.first),
      length: entry.cidr.prefixLength,
      asn: entry.asn,
      maxLength: entry.maxLength,
    }))
    .sort(
      (a, b) =>
        (a.first < b.first ? -1 : a.first > b.first ? 1 : 0) ||
        a.length - b.length ||
        a.asn - b.asn ||
        a.maxLength - b.maxLength,
    );
  // A validator lists a VRP once, but a set merged from several may repeat one.
  return sorted.filter((entry, i) => {
    const before = sorted[i - 1];
    return (
      before === undefined ||
      before.first !== entry.first ||
      before.length !== entry.length ||
      before.asn !== entry.asn ||
      before.maxLength !== entry.maxLength
    );
  });
}

function buildFamily(sorted: readonly Sorted[], width: 1 | 4): VrpFamily {
  const distinct = sorted.filter(
    (entry, i) => i === 0 || sorted[i - 1]?.first !== entry.first || sorted[i - 1]?.length !== entry.length,
  );
  const bits = BigInt(width * 32);
  const family: VrpFamily = {
    words: new Uint32Array(distinct.length * width),
    lengths: new Uint8Array(distinct.length),
    parents: new Int32Array(distinct.length),
    vrpStart: new Uint32Array(distinct.length + 1),
    asns: new Uint32Array(sorted.length),
    maxLengths: new Uint8Array(sorted.length),
  };
  const open: { index: number; last: bigint }[] = [];
  let vrp = 0;
  distinct.forEach((prefix, index) => {
    for (let word = 0; word < width; word++) {
      family.words[index * width + word] = Number((prefix.first >> BigInt((width - 1 - word) * 32)) & 0xffffffffn);
    }
    family.lengths[index] = prefix.length;
    const last = prefix.first | ((1n << (bits - BigInt(prefix.length))) - 1n);
    while (open.length > 0 && (open.at(-1) as { last: bigint }).last < prefix.first) open.pop();
    family.parents[index] = open.at(-1)?.index ?? -1;
    open.push({ index, last });
    family.vrpStart[index] = vrp;
    while (sorted[vrp]?.first === prefix.first && sorted[vrp]?.length === prefix.length) {
      family.asns[vrp] = (sorted[vrp] as Sorted).asn;
      family.maxLengths[vrp] = (sorted[vrp] as Sorted).maxLength;
      vrp++;
    }
  });
  family.vrpStart[distinct.length] = vrp;
  return family;
}

const sections = (family: VrpFamily) =>
  [family.words, family.parents, family.vrpStart, family.asns, family.lengths, family.maxLengths] as const;
const padded = (bytes: number) => Math.ceil(bytes / 4) * 4;

/** The file's bytes for a set of VRPs (duplicates dropped); `generatedAt` NaN when unknown. */
export function encodeVrps(entries: readonly VrpEntry[], generatedAt: number): Buffer {
  const ipv4 = buildFamily(familyOf(entries, 4), 1);
  const ipv6 = buildFamily(familyOf(entries, 6), 4);
  const parts = [...sections(ipv4), ...sections(ipv6)];
  const size = HEADER_BYTES + parts.reduce((sum, part) => sum + padded(part.byteLength), 0);
  const file = Buffer.alloc(size);
  file.write(MAGIC, 0, 'latin1');
  file.writeDoubleLE(generatedAt, 8);
  [ipv4.lengths.length, ipv4.asns.length, ipv6.lengths.length, ipv6.asns.length].forEach((count, i) => {
    file.writeUInt32LE(count, 16 + i * 4);
  });
  let offset = HEADER_BYTES;
  for (const part of parts) {
    Buffer.from(part.buffer, part.byteOffset, part.byteLength).copy(file, offset);
    offset += padded(part.byteLength);
  }
  return file;
}

/**
 * Views the file's bytes as a VRP set, after checking that its header, sizes and links agree, so a
 * damaged file is refused at load (the service keeps the set it has) instead of answering wrongly.
 */
export function decodeVrps(file: Buffer): VrpSet {
  if (file.length < HEADER_BYTES || file.toString('latin1', 0, 8) !== MAGIC) {
    throw new Error('not a VRP set written by this version of netinfo');
  }
  // Typed arrays need their element size's alignment: a small Buffer can sit at any offset of Node's pool.
  const bytes = file.byteOffset % 4 === 0 ? file : Buffer.from(file);
  const counts = [0, 1, 2, 3].map((i) => bytes.readUInt32LE(16 + i * 4)) as [number, number, number, number];
  let offset = bytes.byteOffset + HEADER_BYTES;
  const take = <T>(
    make: new (buffer: ArrayBufferLike, offset: number, length: number) => T,
    length: number,
    size = 4,
  ) => {
    const part = new make(bytes.buffer, offset, length);
    offset += padded(length * size);
    return part;
  };
  const family = (prefixes: number, vrps: number, width: number): VrpFamily => {
    if (prefixes === 0 && vrps === 0) {
      offset += padded(4);
      return EMPTY_FAMILY;
    }
    return {
      words: take(Uint32Array, prefixes * width),
      parents: take(Int32Array, prefixes),
      vrpStart: take(Uint32Array, prefixes + 1),
      asns: take(Uint32Array, vrps),
      lengths: take(Uint8Array, prefixes, 1),
      maxLengths: take(Uint8Array, vrps, 1),
    };
  };
  const expected = HEADER_BYTES + familyBytes(counts[0], counts[1], 1) + familyBytes(counts[2], counts[3], 4);
  if (bytes.length !== expected)
    throw new Error(`a VRP set of ${bytes.length} bytes where its header says ${expected}`);
  const ipv4 = family(counts[0], counts[1], 1);
  const ipv6 = family(counts[2], counts[3], 4);
  for (const [part, bits] of [
    [ipv4, 32],
    [ipv6, 128],
  ] as const) {
    checkLinks(part, bits);
  }
  return { ipv4, ipv6, generatedAt: bytes.readDoubleLE(8), size: counts[1] + counts[3] };
}

/** What `sections` take for a family, each padded as encodeVrps writes it. */
function familyBytes(prefixes: number, vrps: number, width: number): number {
  return padded(prefixes * width * 4) + 4 * prefixes + 4 * (prefixes + 1) + 4 * vrps + padded(prefixes) + padded(vrps);
}

function checkLinks(family: VrpFamily, bits: number): void {
  const prefixes = family.lengths.length;
  if (family.vrpStart[prefixes] !== family.asns.length)
    throw new Error('a VRP set whose VRP index does not end at its VRPs');
  for (let i = 0; i < prefixes; i++) {
    const parent = family.parents[i] as number;
    if (parent < -1 || parent >= i) throw new Error(`a VRP set with a bad parent link at prefix ${i}`);
    if ((family.lengths[i] as number) > bits) throw new Error(`a VRP set with a /${family.lengths[i]} prefix`);
    if ((family.vrpStart[i] as number) > (family.vrpStart[i + 1] as number)) throw new Error('a VRP set out of order');
  }
}
