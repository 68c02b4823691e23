import type { Reader, Response } from 'maxmind';
import { formatIp } from '../../net/ip-address.ts';
import type { AsnRangeColumns } from './asn-ranges.ts';

/** The parts of a MaxMind-format ASN record the index needs. */
interface AsnRecord {
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
  isp?: string;
  organization?: string;
}

type Row<N> = { first: N; last: N; asn: number; name: number };

/**
 * Every network of a MaxMind-format ASN database (GeoLite2-ASN, GeoIP2-ISP, DB-IP ASN) as rows
 * sorted by address, in the columns the ASN index reads (asn-index.ts): the search tree is walked
 * depth-first, left before right, so networks come out in address order. Networks that touch and
 * share a record become one row. In an IPv6 database the IPv4 space is its `::/96` subtree, and
 * the subtrees that alias it (`::ffff:0:0/96`, `2002::/16`) are skipped, so no IPv4 network is
 * listed twice or as IPv6. mmdb-lib has no iteration of its own, so the tree is read here from the
 * file's documented layout (MaxMind DB format 2.0); records are decoded through the reader.
 */
export function mmdbAsnRows(db: Buffer, reader: Reader<Response>): AsnRangeColumns {
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const nodeBytes = (recordSize * 2) / 8;
  const left = (node: number): number => {
    const at = node * nodeBytes;
    if (recordSize === 24) return db.readUIntBE(at, 3);
    if (recordSize === 28) return ((db[at + 3] as number) & 0xf0) * 2 ** 20 + db.readUIntBE(at, 3);
    return db.readUInt32BE(at);
  };
  const right = (node: number): number => {
    const at = node * nodeBytes;
    if (recordSize === 24) return db.readUIntBE(at + 3, 3);
    if (recordSize === 28) return ((db[at + 3] as number) & 0x0f) * 2 ** 24 + db.readUIntBE(at + 4, 3);
    return db.readUInt32BE(at + 4);
  };
  let ipv4Start = 0;
  if (ipVersion === 6) for (let i = 0; i < 96 && ipv4Start < nodeCount; i++) ipv4Start = left(ipv4Start);

  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const records = new Map<number, { asn: number; name: number } | null>();
  /** The AS of a data record (read once per record), null when it has none. */
  const recordAt = (pointer: number, firstAddress: string) => {
    let record = records.get(pointer);
    if (record === undefined) {
      const found = reader.get(firstAddress) as AsnRecord | null;
      const asn = found?.autonomous_system_number;
      const name = found?.autonomous_system_organization ?? found?.organization ?? found?.isp ?? '';
      let index = nameIndex.get(name);
      if (index === undefined) {
        index = names.length;
        names.push(name);
        nameIndex.set(name, index);
      }
      record = asn === undefined ? null : { asn, name: index };
      records.set(pointer, record);
    }
    return record;
  };

  const rows4: Row<number>[] = [];
  const rows6: Row<bigint>[] = [];
  const add = <N extends number | bigint>(rows: Row<N>[], pointer: number, first: N, last: N, text: string) => {
    const record = recordAt(pointer, text);
    if (record === null) return;
    const previous = rows[rows.length - 1];
    const touches =
      previous !== undefined &&
      (typeof first === 'bigint' ? (previous.last as bigint) + 1n === first : (previous.last as number) + 1 === first);
    if (touches && previous.asn === record.asn && previous.name === record.name) previous.last = last;
    else rows.push({ first, last, asn: record.asn, name: record.name });
  };

  // IPv4: a plain number per prefix, depth-first with an explicit stack.
  if (ipv4Start < nodeCount) {
    const stack: [node: number, depth: number, value: number][] = [[ipv4Start, 0, 0]];
    while (stack.length > 0) {
      const [node, depth, value] = stack.pop() as [number, number, number];
      const half = 2 ** (31 - depth);
      // Right pushed first, so the left (lower) half comes out first.
      for (const [child, start] of [
        [right(node), value + half],
        [left(node), value],
      ] as const) {
        if (child < nodeCount) stack.push([child, depth + 1, start]);
        else if (child > nodeCount) add(rows4, child, start, start + half - 1, formatIp({ version: 4, value: start }));
      }
    }
  }
  if (ipVersion === 6) {
    const stack: [node: number, depth: number, value: bigint][] = [[0, 0, 0n]];
    while (stack.length > 0) {
      const [node, depth, value] = stack.pop() as [number, number, bigint];
      const half = 1n << BigInt(127 - depth);
      for (const [child, start] of [
        [right(node), value + half],
        [left(node), value],
      ] as const) {
        // The IPv4 subtree (::/96) and its aliases were walked above.
        if (child === ipv4Start && ipv4Start < nodeCount) continue;
        if (child < nodeCount) stack.push([child, depth + 1, start]);
        else if (child > nodeCount) add(rows6, child, start, start + half - 1n, formatIp({ version: 6, value: start }));
      }
    }
  }

  const low64 = (1n << 64n) - 1n;
  return {
    first4: Uint32Array.from(rows4, (row) => row.first),
    last4: Uint32Array.from(rows4, (row) => row.last),
    asn4: Uint32Array.from(rows4, (row) => row.asn),
    firstHi: BigUint64Array.from(rows6, (row) => row.first >> 64n),
    firstLo: BigUint64Array.from(rows6, (row) => row.first & low64),
    lastHi: BigUint64Array.from(rows6, (row) => row.last >> 64n),
    lastLo: BigUint64Array.from(rows6, (row) => row.last & low64),
    asn6: Uint32Array.from(rows6, (row) => row.asn),
    organisation: (version, i) => names[((version === 4 ? rows4 : rows6)[i] as Row<unknown>).name] as string,
  };
}
