import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { type CityResponse, Reader } from 'maxmind';
import { embeddedCityDatabase } from '../../../src/ipinfo/data/embedded-data.ts';
import { createLocationReader } from '../../../src/ipinfo/data/geo.ts';
import { MmdbReader } from '../../../src/ipinfo/data/mmdb-reader.ts';
import { formatIp } from '../../../src/net/ip-address.ts';
import { locationFields, mmdb, mmdbDir } from '../../support/mmdb-fixtures.ts';
import { xorshift } from '../../support/public-addresses.ts';

/** What geo.ts made of mmdb-lib's whole record before it read records itself: the reference. */
function referenceCity(reader: Reader<CityResponse>, ip: string) {
  const record = reader.get(ip);
  if (record === null) return undefined;
  const traits = record.traits as { user_type?: string; connection_type?: string } | undefined;
  const defined = (fields: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== ''));
  return {
    location: locationFields(record),
    traits: defined({ userType: traits?.user_type, connectionType: traits?.connection_type }),
  };
}

function assertSameAsReference(db: Buffer, ips: Iterable<string>, label: string): number {
  const lean = createLocationReader(db);
  const lib = new Reader<CityResponse>(db);
  let compared = 0;
  for (const ip of ips) {
    const want = referenceCity(lib, ip);
    const got = lean.lookupCity(ip);
    // In the same order too: an answer's object is printed as it is by some faces.
    assert.deepStrictEqual(Object.keys(got?.location ?? {}), Object.keys(want?.location ?? {}), `${label} ${ip}`);
    assert.deepStrictEqual(got, want, `${label} ${ip}`);
    compared++;
  }
  return compared;
}

const cityLike = readdirSync(mmdbDir)
  .filter((name) => /(City|Country|Enterprise).*\.mmdb$/.test(name))
  .map((name) => name.replace(/\.mmdb$/, ''));

test('the lean City reader answers as mmdb-lib does, for every network of every City and Country test database', () => {
  assert.ok(cityLike.length >= 3, `City-like test databases in ${mmdbDir}: ${cityLike.join(', ')}`);
  for (const name of cityLike) {
    const db = mmdb(name);
    const reader = new MmdbReader(db);
    // Every network of the tree: its first address, its last and the one after it.
    const ips: string[] = [];
    for (const { first, last } of networksOf(reader)) {
      for (const value of [first, last, last + 1n]) {
        if (value >= 0n && value < 1n << 128n) ips.push(formatIp({ version: 6, value }));
      }
    }
    ips.push('81.2.69.142', '::ffff:81.2.69.142', '8.8.8.8', 'bad', '1.2.3');
    assert.ok(assertSameAsReference(db, ips, name) > 10, name);
  }
});

test("an IPv4 address's record and prefix length are found as mmdb-lib finds them (the walk starts at its /16's node)", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-mmdb-reader-'));
  const databases: [string, Buffer][] = [
    ...cityLike.map((name): [string, Buffer] => [name, mmdb(name)]),
    ['GeoLite2-City', (await embeddedCityDatabase(dir)).value],
  ];
  const next = xorshift(0x6d2b79f5);
  let found = 0;
  for (const [name, db] of databases) {
    const reader = new MmdbReader(db);
    const lib = new Reader<CityResponse>(db);
    const values: number[] = Array.from({ length: 5000 }, () => next());
    // Every network of the small test databases (the embedded one has millions).
    for (const { first, last } of name === 'GeoLite2-City' ? [] : networksOf(reader)) {
      // The IPv4 space: ::a.b.c.d in an IPv6 tree, ::ffff:a.b.c.d as networksOf gives an IPv4 tree's.
      for (const value of [first, last]) {
        const v4 = value >> 32n === 0n || value >> 32n === 0xffffn ? Number(value & 0xffffffffn) : -1;
        if (v4 >= 0) values.push(v4);
      }
    }
    for (const value of values) {
      const ip = formatIp({ version: 4, value });
      const [record, prefixLength] = lib.getWithPrefixLength(ip);
      const got = reader.find({ version: 4, value });
      assert.equal(got === undefined, record === null, `${name} ${ip}`);
      if (got === undefined) continue;
      assert.equal(got.prefixLength, prefixLength, `${name} ${ip}`);
      assert.deepStrictEqual(reader.decode(got.offset), record, `${name} ${ip}`);
      found++;
    }
  }
  assert.ok(found > 3000, `found ${found}`);
  rmSync(dir, { recursive: true, force: true });
});

/** Every network of a tree, from the tree itself (as numbers over the IPv6 space, or IPv4's). */
function* networksOf(reader: MmdbReader): Generator<{ first: bigint; last: bigint }> {
  const { nodeCount, ipVersion } = reader.metadata;
  const bits = ipVersion === 6 ? 128 : 32;
  const stack: [number, number, bigint][] = [[0, 0, 0n]];
  const child = (reader as unknown as { child(node: number, bit: number): number }).child.bind(reader);
  while (stack.length > 0) {
    const [node, depth, value] = stack.pop() as [number, number, bigint];
    for (const bit of [0, 1]) {
      const next = child(node, bit);
      const start = value | (BigInt(bit) << BigInt(bits - depth - 1));
      if (next < nodeCount) stack.push([next, depth + 1, start]);
      else if (next > nodeCount) {
        const last = start + (1n << BigInt(bits - depth - 1)) - 1n;
        yield ipVersion === 6
          ? { first: start, last }
          : { first: start + (0xffffn << 32n), last: last + (0xffffn << 32n) };
      }
    }
  }
}

test('the lean City reader answers as mmdb-lib does for 100,000 addresses of the embedded GeoLite2 City', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-mmdb-reader-'));
  const db = (await embeddedCityDatabase(dir)).value;
  const next = xorshift(0x2545f491);
  const ips = Array.from({ length: 100_000 }, () => {
    const value = next();
    return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
  });
  // And IPv6 addresses in the announced space.
  for (let i = 0; i < 20_000; i++) {
    const hi = BigInt(0x20000000 + (next() & 0x1fffffff));
    const value = (hi << 96n) | (BigInt(next()) << 64n) | BigInt(next());
    ips.push(formatIp({ version: 6, value }));
  }
  assert.equal(assertSameAsReference(db, ips, 'GeoLite2-City'), 120_000);
  rmSync(dir, { recursive: true, force: true });
});

test('the lean reader reads a view of a SharedArrayBuffer', () => {
  const bytes = mmdb('GeoIP2-City-Test');
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 8), 8, bytes.length);
  shared.set(bytes);
  const reader = createLocationReader(shared);
  assert.deepEqual(reader.lookupCity('81.2.69.142'), createLocationReader(bytes).lookupCity('81.2.69.142'));
  assert.equal(reader.lookupCity('81.2.69.142')?.location.city, 'London');
});
