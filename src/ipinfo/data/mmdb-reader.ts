import type { IpAddress } from '../../net/ip-address.ts';

/**
 * A MaxMind DB (format 2.0) read straight from its bytes: the search tree walked without parsing
 * the address again, and records read field by field from a data-section offset, so a caller
 * decodes only what it answers. mmdb-lib decodes a whole City record (names in eight languages,
 * every subdivision) into objects: 31 µs per new address, most of a batch item's cost (see
 * docs/performance.md, "Batches of new addresses"). Works on any Uint8Array, a view of a
 * SharedArrayBuffer included (no TextDecoder, which refuses shared memory).
 */

const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

export const MmdbType = {
  Pointer: 1,
  String: 2,
  Double: 3,
  Bytes: 4,
  Uint16: 5,
  Uint32: 6,
  Map: 7,
  Int32: 8,
  Uint64: 9,
  Uint128: 10,
  Array: 11,
  Boolean: 14,
  Float: 15,
} as const;

export interface MmdbMetadata {
  readonly databaseType: string;
  readonly ipVersion: number;
  readonly nodeCount: number;
  readonly recordSize: number;
  readonly buildEpoch: Date;
}

export class MmdbReader {
  readonly metadata: MmdbMetadata;
  readonly bytes: Buffer;
  private readonly view: DataView;
  private readonly treeBytes: number;
  /** Where data-section pointers count from. */
  private dataStart: number;
  private readonly ipv4Start: number;
  private readonly ipv4StartDepth: number;
  /** A value's type and where its payload starts and ends, set by `head` (no object per value). */
  type = 0;
  size = 0;
  at = 0;
  /** Decoded map keys by offset: a database writes each key once and points at it. */
  private readonly keys = new Map<number, string>();

  constructor(db: Uint8Array) {
    this.bytes = Buffer.from(db.buffer, db.byteOffset, db.byteLength);
    this.view = new DataView(db.buffer, db.byteOffset, db.byteLength);
    const marker = this.bytes.lastIndexOf(METADATA_MARKER);
    if (marker === -1) throw new Error('not a MaxMind DB file (no metadata marker)');
    // Pointers in the metadata count from its own start.
    this.dataStart = marker + METADATA_MARKER.length;
    const raw = this.decode(this.dataStart) as Record<string, unknown>;
    const nodeCount = Number(raw.node_count);
    const recordSize = Number(raw.record_size);
    if (![24, 28, 32].includes(recordSize)) throw new Error(`unsupported MaxMind DB record size ${recordSize}`);
    this.metadata = {
      databaseType: String(raw.database_type),
      ipVersion: Number(raw.ip_version),
      nodeCount,
      recordSize,
      buildEpoch: new Date(Number(raw.build_epoch) * 1000),
    };
    this.treeBytes = (nodeCount * recordSize) / 4;
    this.dataStart = this.treeBytes + 16;
    let node = 0;
    let depth = 0;
    if (this.metadata.ipVersion === 6) for (; depth < 96 && node < nodeCount; depth++) node = this.child(node, 0);
    this.ipv4Start = node;
    this.ipv4StartDepth = depth;
    this.byFirst16 = new Uint32Array(65536);
    this.depthByFirst16 = new Uint8Array(65536);
    for (let prefix = 0; prefix < 65536; prefix++) {
      let at = this.ipv4Start;
      let bits = 0;
      for (; bits < 16 && at < nodeCount; bits++) at = this.child(at, (prefix >>> (15 - bits)) & 1);
      this.byFirst16[prefix] = at;
      this.depthByFirst16[prefix] = bits;
    }
  }

  /**
   * Where the IPv4 walk stands after an address's first 16 bits (a node, or a record reached
   * earlier) and at what depth: a new address's walk starts there, saving half its node reads
   * (find was 6% of a batch item's profile). 320 KB.
   */
  private readonly byFirst16: Uint32Array;
  private readonly depthByFirst16: Uint8Array;

  private child(node: number, bit: number): number {
    const b = this.bytes;
    const size = this.metadata.recordSize;
    if (size === 24) {
      const at = node * 6 + bit * 3;
      return ((b[at] as number) << 16) | ((b[at + 1] as number) << 8) | (b[at + 2] as number);
    }
    if (size === 28) {
      const at = node * 7;
      const middle = b[at + 3] as number;
      if (bit === 0) {
        return (
          ((middle & 0xf0) << 20) | ((b[at] as number) << 16) | ((b[at + 1] as number) << 8) | (b[at + 2] as number)
        );
      }
      return (
        ((middle & 0x0f) << 24) | ((b[at + 4] as number) << 16) | ((b[at + 5] as number) << 8) | (b[at + 6] as number)
      );
    }
    return this.view.getUint32(node * 8 + bit * 4);
  }

  /**
   * The data offset of the record for an address and the length of the network that matched
   * (counted from the address's own family: /24, not /120, for IPv4), or undefined: no record,
   * or an IPv6 address in an IPv4 database.
   */
  find(address: IpAddress): { offset: number; prefixLength: number } | undefined {
    const { nodeCount } = this.metadata;
    let node: number;
    let depth = 0;
    if (address.version === 4) {
      const value = address.value;
      node = this.byFirst16[value >>> 16] as number;
      depth = this.depthByFirst16[value >>> 16] as number;
      for (; depth < 32 && node < nodeCount; depth++) node = this.child(node, (value >>> (31 - depth)) & 1);
    } else {
      if (this.metadata.ipVersion !== 6) return undefined;
      node = 0;
      const value = address.value;
      for (; depth < 128 && node < nodeCount; depth++) {
        node = this.child(node, Number((value >> BigInt(127 - depth)) & 1n));
      }
    }
    if (node <= nodeCount) return undefined;
    const offset = node - nodeCount - 16 + this.dataStart;
    if (offset >= this.bytes.length) throw new Error('MaxMind DB search tree points outside the file');
    return { offset, prefixLength: depth };
  }

  /** Depth of the IPv4 subtree in the IPv6 tree (96 unless the tree stops earlier). */
  get ipv4Depth(): number {
    return this.ipv4StartDepth;
  }

  /** Reads the control bytes at `offset`, following one pointer: sets type, size and at. */
  head(offset: number): void {
    const b = this.bytes;
    let at = offset;
    const control = b[at++] as number;
    let type = control >> 5;
    if (type === MmdbType.Pointer) {
      const high = control & 7;
      const sizeBits = (control >> 3) & 3;
      let target: number;
      if (sizeBits === 0) target = (high << 8) | (b[at] as number);
      else if (sizeBits === 1) target = ((high << 16) | ((b[at] as number) << 8) | (b[at + 1] as number)) + 2048;
      else if (sizeBits === 2) {
        target =
          ((high << 24) | ((b[at] as number) << 16) | ((b[at + 1] as number) << 8) | (b[at + 2] as number)) + 526336;
      } else target = this.view.getUint32(at);
      this.head(this.dataStart + target);
      // The caller goes on after the pointer, not after what it points at.
      this.end = at + sizeBits + 1;
      return;
    }
    if (type === 0) type = 7 + (b[at++] as number);
    let size = control & 0x1f;
    if (size >= 29) {
      if (size === 29) size = 29 + (b[at++] as number);
      else if (size === 30) {
        size = 285 + (((b[at] as number) << 8) | (b[at + 1] as number));
        at += 2;
      } else {
        size = 65821 + (((b[at] as number) << 16) | ((b[at + 1] as number) << 8) | (b[at + 2] as number));
        at += 3;
      }
    }
    this.type = type;
    this.size = size;
    this.at = at;
    this.end = -1;
  }

  /** Where the value read by the last `head` ends when it was reached through a pointer, else -1. */
  end = -1;

  /** The offset just after the value at `offset`, its children included. */
  skip(offset: number): number {
    this.head(offset);
    if (this.end !== -1) return this.end;
    return this.skipPayload();
  }

  private skipPayload(): number {
    const { type, size, at } = this;
    if (type === MmdbType.Map) {
      let next = at;
      for (let i = 0; i < size; i++) next = this.skip(this.skip(next));
      return next;
    }
    if (type === MmdbType.Array) {
      let next = at;
      for (let i = 0; i < size; i++) next = this.skip(next);
      return next;
    }
    if (type === MmdbType.Boolean) return at;
    return at + size;
  }

  /** A map key, decoded once per offset. Leaves `next` after the key. */
  key(offset: number): string {
    this.head(offset);
    const next = this.end === -1 ? this.at + this.size : this.end;
    const start = this.at;
    let key: string | undefined = this.keys.get(start);
    if (key === undefined) {
      key = this.bytes.toString('utf8', start, start + this.size);
      // Keys written in place (not pointed at) would each be new: stop remembering past a bound.
      if (this.keys.size < 4096) this.keys.set(start, key);
    }
    this.next = next;
    return key;
  }

  next = 0;

  /** The value at `offset` decoded whole, as mmdb-lib decodes it (uint64/uint128 as bigint). */
  decode(offset: number): unknown {
    this.head(offset);
    const after = this.end;
    const { type, size, at } = this;
    let value: unknown;
    let next = at + size;
    switch (type) {
      case MmdbType.String:
        value = this.bytes.toString('utf8', at, at + size);
        break;
      case MmdbType.Double:
        value = this.view.getFloat64(at);
        break;
      case MmdbType.Float:
        value = this.view.getFloat32(at);
        break;
      case MmdbType.Bytes:
        value = Buffer.from(this.bytes.subarray(at, at + size));
        break;
      case MmdbType.Uint16:
      case MmdbType.Uint32:
        value = this.uint(at, size);
        break;
      case MmdbType.Int32:
        value = size === 4 ? this.view.getInt32(at) : this.uint(at, size);
        break;
      case MmdbType.Uint64:
      case MmdbType.Uint128: {
        let big = 0n;
        for (let i = 0; i < size; i++) big = (big << 8n) | BigInt(this.bytes[at + i] as number);
        value = big;
        break;
      }
      case MmdbType.Boolean:
        value = size !== 0;
        next = at;
        break;
      case MmdbType.Map: {
        const map: Record<string, unknown> = {};
        let cursor = at;
        for (let i = 0; i < size; i++) {
          const name = this.key(cursor);
          cursor = this.next;
          map[name] = this.decode(cursor);
          cursor = this.next;
        }
        value = map;
        next = cursor;
        break;
      }
      case MmdbType.Array: {
        const list: unknown[] = [];
        let cursor = at;
        for (let i = 0; i < size; i++) {
          list.push(this.decode(cursor));
          cursor = this.next;
        }
        value = list;
        next = cursor;
        break;
      }
      default:
        throw new Error(`MaxMind DB: unknown data type ${type} at ${offset}`);
    }
    this.next = after === -1 ? next : after;
    return value;
  }

  /** An unsigned integer of `size` (0-4) big-endian bytes. */
  uint(at: number, size: number): number {
    let value = 0;
    for (let i = 0; i < size; i++) value = value * 256 + (this.bytes[at + i] as number);
    return value;
  }

  double(at: number): number {
    return this.view.getFloat64(at);
  }
}
