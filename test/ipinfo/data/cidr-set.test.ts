import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CidrColumns } from '../../../src/ipinfo/data/cidr-set.ts';
import { parseCidrList, parseTorExitList } from '../../../src/ipinfo/data/feeds.ts';
import type { IpAddress } from '../../../src/net/ip-address.ts';
import { feedDir, feedSkip } from '../../support/mmdb-fixtures.ts';
import { xorshift } from '../../support/public-addresses.ts';
import { buildRangeTable } from '../../support/range-table.ts';

/**
 * The columns take the lines feeds.ts's parsers accept, and answer as the range table built from
 * those parsers' entries answered: at every network's edges, around them, and at random addresses.
 */
function assertSameAsParsers(text: string, tor = false): number {
  const entries = (tor ? parseTorExitList(text) : parseCidrList(text)).entries;
  const reference = buildRangeTable(entries.map((cidr) => ({ cidr, value: true })));
  const columns = new CidrColumns();
  assert.equal(columns.addText(text, tor), entries.length);
  const set = columns.build();
  assert.deepEqual(set.coverage, {
    ipv4: entries.some((c) => c.version === 4),
    ipv6: entries.some((c) => c.version === 6),
  });
  const next = xorshift(0x9e3779b9);
  const probes: IpAddress[] = [];
  for (const cidr of entries) {
    if (cidr.version === 4) {
      for (const value of [cidr.first - 1, cidr.first, cidr.last, cidr.last + 1]) {
        if (value >= 0 && value < 2 ** 32) probes.push({ version: 4, value });
      }
    } else {
      for (const value of [cidr.first - 1n, cidr.first, cidr.last, cidr.last + 1n]) {
        if (value >= 0n && value < 1n << 128n) probes.push({ version: 6, value });
      }
    }
  }
  for (let i = 0; i < 20_000; i++) probes.push({ version: 4, value: next() >>> 0 });
  for (const address of probes) {
    assert.equal(set.has(address), reference.lookupAddress(address) === true, JSON.stringify(String(address.value)));
  }
  return entries.length;
}

const TRICKY = [
  '# a comment',
  '',
  '1.12.0.0/14',
  '1.12.4.0/24',
  '1.13.0.0/16 # nested in the /14, with a comment',
  '1.16.0.0/16',
  '1.17.0.0/16', // adjacent to the one before
  '  2001:db8::/32  # trailing comment\r',
  '2001:db8:1::/48',
  '10.0.0.1/8', // host bits set
  '300.0.0.0/8',
  '192.0.2.7',
  '192.0.2.7/32\r',
  '01.2.3.4',
  '1.2.3.4/08',
  '1.2.3.4/33',
  '1.2.3.0/024',
  '1.2.3.0/',
  '1.2.3.0 /24',
  '\t5.6.7.0/24\t',
  '0.0.0.0/0',
  '::ffff:9.9.9.9',
  'fe80::1%eth0',
  'not an address',
  '255.255.255.255',
  '9.9.9.9#no space before the comment',
].join('\n');

test('the columns take what parseCidrList and parseTorExitList take, and answer as the range table did', () => {
  assert.equal(assertSameAsParsers(TRICKY), 14);
  assert.equal(assertSameAsParsers(TRICKY.replace('0.0.0.0/0', '')), 13);
  assert.equal(assertSameAsParsers(TRICKY, true), 4);
});

test('a large feed of nested, adjacent and repeated networks answers as the range table did', () => {
  const next = xorshift(0x2545f491);
  const lines: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    const length = 8 + (next() % 25);
    const size = 2 ** (32 - length);
    const first = Math.floor((next() >>> 0) / size) * size;
    lines.push(`${first >>> 24}.${(first >>> 16) & 255}.${(first >>> 8) & 255}.${first & 255}/${length}`);
    if (i % 100 === 0) lines.push(`2a0${next() % 10}:${(next() & 0xffff).toString(16)}::/${16 + (next() % 48)}`);
  }
  assert.ok(assertSameAsParsers(lines.join('\n')) > 25_000);
});

test('the real feed snapshots: the columns answer as the range table did', { skip: feedSkip }, () => {
  const read = (name: string) => readFileSync(path.join(feedDir, name), 'utf8');
  for (const name of ['x4bnet-datacenter-ipv4.txt', 'x4bnet-datacenter-ipv6.txt', 'x4bnet-vpn-ipv4.txt']) {
    assert.ok(assertSameAsParsers(read(name)) > 1000, name);
  }
  assert.ok(assertSameAsParsers(read('tor-exit-nodes.lst'), true) > 1000);
});
