import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Cidr, parseCidr } from '../../../src/net/cidr.ts';
import { buildRangeTable } from '../../support/range-table.ts';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.reason}`);
  return parsed.cidr;
}

function table(rows: [string, string][]) {
  return buildRangeTable(rows.map(([range, value]) => ({ cidr: cidr(range), value })));
}

test('most specific entry wins, whatever the input order', () => {
  const rows: [string, string][] = [
    ['10.1.2.0/24', 'inner'],
    ['10.0.0.0/8', 'outer'],
    ['10.1.2.128/25', 'innermost'],
    ['10.1.0.0/16', 'middle'],
  ];
  for (const ordering of [rows, [...rows].reverse()]) {
    const t = table(ordering);
    assert.equal(t.lookup('10.0.0.0'), 'outer', 'first of outer');
    assert.equal(t.lookup('10.1.1.255'), 'middle', 'before inner');
    assert.equal(t.lookup('10.1.2.0'), 'inner', 'first of inner');
    assert.equal(t.lookup('10.1.2.127'), 'inner', 'last before innermost');
    assert.equal(t.lookup('10.1.2.128'), 'innermost');
    assert.equal(t.lookup('10.1.2.255'), 'innermost', 'innermost and inner end together');
    assert.equal(t.lookup('10.1.3.0'), 'middle', 'back out to middle');
    assert.equal(t.lookup('10.255.255.255'), 'outer', 'last of outer');
    assert.equal(t.lookup('11.0.0.0'), undefined, 'just outside');
    assert.equal(t.lookup('9.255.255.255'), undefined, 'just before');
  }
});

test('adjacent ranges stay distinct; equal neighbours merge', () => {
  const t = table([
    ['192.0.2.0/25', 'a'],
    ['192.0.2.128/25', 'b'],
    ['198.51.100.0/25', 'same'],
    ['198.51.100.128/25', 'same'],
  ]);
  assert.equal(t.lookup('192.0.2.127'), 'a');
  assert.equal(t.lookup('192.0.2.128'), 'b');
  assert.equal(t.lookup('198.51.100.200'), 'same');
  assert.equal(t.segmentCount, 3, 'the two "same" halves are one segment');
});

test('the same CIDR twice: the later entry wins', () => {
  const t = table([
    ['203.0.113.0/24', 'first'],
    ['203.0.113.0/24', 'second'],
  ]);
  assert.equal(t.lookup('203.0.113.9'), 'second');
});

test('/0, /32 and the ends of the address space', () => {
  const t = table([
    ['0.0.0.0/0', 'everything'],
    ['255.255.255.255/32', 'broadcast'],
    ['0.0.0.0/32', 'zero'],
  ]);
  assert.equal(t.lookup('0.0.0.0'), 'zero');
  assert.equal(t.lookup('0.0.0.1'), 'everything');
  assert.equal(t.lookup('255.255.255.254'), 'everything');
  assert.equal(t.lookup('255.255.255.255'), 'broadcast');
  assert.equal(t.lookup('::1'), undefined, 'IPv4 /0 does not cover IPv6');
});

test('IPv6: /0, /128, nesting, compressed and mapped input', () => {
  const t = table([
    ['::/0', 'v6-default'],
    ['2001:db8::/32', 'doc'],
    ['2001:db8:1::/48', 'site'],
    ['2001:db8:1::1/128', 'host'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', 'top'],
    ['192.0.2.0/24', 'v4'],
  ]);
  assert.equal(t.lookup('::'), 'v6-default');
  assert.equal(t.lookup('2001:db8::'), 'doc');
  assert.equal(t.lookup('2001:DB8:0001:0000:0000:0000:0000:0001'), 'host', 'expanded upper-case form');
  assert.equal(t.lookup('2001:db8:1::2'), 'site');
  assert.equal(t.lookup('2001:db8:2::'), 'doc');
  assert.equal(t.lookup('2001:db9::'), 'v6-default');
  assert.equal(t.lookup('ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe'), 'v6-default');
  assert.equal(t.lookup('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 'top');
  assert.equal(t.lookup('::ffff:192.0.2.1'), 'v4', 'mapped address looks up the IPv4 table');
  assert.equal(t.lookup('not-an-ip'), undefined);
});

test('empty table', () => {
  const t = buildRangeTable<string>([]);
  assert.equal(t.lookup('1.2.3.4'), undefined);
  assert.equal(t.lookup('::1'), undefined);
  assert.equal(t.segmentCount, 0);
});

test('agrees with a linear most-specific scan on random nested prefixes', () => {
  // A deterministic generator keeps the test reproducible without a seed argument.
  let state = 12345;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state;
  };
  const cidrs: Cidr[] = [];
  for (let i = 0; i < 300; i++) {
    const length = 8 + (random() % 25);
    const size = 2 ** (32 - length);
    const first = Math.floor(((random() % 2 ** 20) * 4096) / size) * size; // crowd the low space
    cidrs.push({ version: 4, first, last: first + size - 1, prefixLength: length });
  }
  const t = buildRangeTable(cidrs.map((c, i) => ({ cidr: c, value: i })));
  for (let probe = 0; probe < 5000; probe++) {
    const value = (random() % 2 ** 20) * 4096 + (random() % 4096);
    let expected: number | undefined;
    let best = -1;
    cidrs.forEach((c, i) => {
      if (c.version === 4 && value >= c.first && value <= c.last && c.prefixLength >= best) {
        best = c.prefixLength;
        expected = i;
      }
    });
    assert.equal(t.lookupAddress({ version: 4, value }), expected, `probe ${value}`);
  }
});
