import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Cidr, cidrOf, formatCidr, parseCidr } from '../../src/net/cidr.ts';
import { parseIp } from '../../src/net/ip-address.ts';

/** MaxMind's official test databases and the JSON they were built from (shared, read-only). */
export const mmdbDir = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'mmdb');
export const mmdbFixturesPresent = existsSync(mmdbDir);
export const mmdbPath = (name: string) => path.join(mmdbDir, `${name}.mmdb`);
export const mmdb = (name: string) => readFileSync(mmdbPath(name));

/** The real feed snapshots (shared, read-only). */
export const feedDir = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'feeds');
export const feedFixturesPresent = existsSync(feedDir);

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
