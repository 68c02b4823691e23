import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Cidr, cidrOf, parseCidr } from '../../src/net/cidr.ts';
import { parseIp } from '../../src/net/ip-address.ts';
import { validateRoute } from '../../src/rpki/validity.ts';
import { decodeVrps, encodeVrps, type VrpEntry } from '../../src/rpki/vrp-file.ts';
import type { VrpSet } from '../../src/rpki/vrp-set.ts';

const cidr = (text: string): Cidr => {
  const parsed = parseCidr(text);
  assert.ok(parsed.ok, text);
  return parsed.cidr;
};

/** A set as the service has it: written to the file format and viewed back, as after an install. */
const setOf = (vrps: [string, number, number][]): VrpSet =>
  decodeVrps(
    encodeVrps(
      vrps.map(([prefix, maxLength, asn]) => ({ cidr: cidr(prefix), maxLength, asn })),
      Number.NaN,
    ),
  );

const validate = (set: VrpSet, route: string, asn: number) => {
  const [address, length] = route.split('/') as [string, string];
  return validateRoute(set, parseIp(address) ?? assert.fail(route), Number(length), asn);
};

const summary = (set: VrpSet, route: string, asn: number) => {
  const result = validate(set, route, asn);
  return [
    result.state,
    result.reason ?? '-',
    result.matched.length,
    result.unmatchedAs.length,
    result.unmatchedLength.length,
  ];
};

// RFC 6811 §2, case by case, each on the set the case needs.
test('RFC 6811: a covering VRP of the origin with room for the length makes the route valid', () => {
  const set = setOf([['192.0.2.0/24', 24, 64500]]);
  assert.deepEqual(summary(set, '192.0.2.0/24', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(validate(set, '192.0.2.0/24', 64500).matched, [
    { prefix: '192.0.2.0/24', maxLength: 24, asn: 64500 },
  ]);
});

test('RFC 6811: another origin is invalid for reason "as"', () => {
  const set = setOf([['192.0.2.0/24', 24, 64500]]);
  assert.deepEqual(summary(set, '192.0.2.0/24', 64501), ['invalid', 'as', 0, 1, 0]);
});

test('RFC 6811: a route longer than maxLength is invalid for reason "length"', () => {
  const set = setOf([['198.51.100.0/22', 23, 64500]]);
  assert.deepEqual(summary(set, '198.51.100.0/23', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(summary(set, '198.51.100.0/24', 64500), ['invalid', 'length', 0, 0, 1]);
  // Another AS at a bad length: the VRP does not name it, so the reason is the AS.
  assert.deepEqual(summary(set, '198.51.100.0/24', 64501), ['invalid', 'as', 0, 1, 0]);
});

test('RFC 6811: of several covering VRPs one that matches is enough; the others are listed as unmatched', () => {
  const set = setOf([
    ['203.0.113.0/24', 24, 64501],
    ['203.0.0.0/16', 24, 64500],
    ['203.0.113.0/24', 24, 0],
    ['203.0.113.0/25', 25, 64500], // more specific than the route: it does not cover it
  ]);
  const result = validate(set, '203.0.113.0/24', 64500);
  assert.equal(result.state, 'valid');
  assert.deepEqual(result.matched, [{ prefix: '203.0.0.0/16', maxLength: 24, asn: 64500 }]);
  assert.deepEqual(
    result.unmatchedAs.map((vrp) => vrp.asn),
    [0, 64501],
  );
  assert.deepEqual(
    result.covering.map((vrp) => `${vrp.prefix} AS${vrp.asn}`),
    ['203.0.113.0/24 AS0', '203.0.113.0/24 AS64501', '203.0.0.0/16 AS64500'],
  );
});

test('AS0 (RFC 7607): an AS0 VRP makes every route it covers invalid, and a route from AS0 never matches', () => {
  const set = setOf([['100.64.0.0/10', 32, 0]]);
  assert.deepEqual(summary(set, '100.64.1.0/24', 64500), ['invalid', 'as', 0, 1, 0]);
  assert.deepEqual(summary(set, '100.64.1.0/24', 0), ['invalid', 'as', 0, 1, 0]);
  assert.deepEqual(summary(setOf([['192.0.2.0/24', 24, 64500]]), '192.0.2.0/24', 0), ['invalid', 'as', 0, 1, 0]);
});

test('IPv6: covered, too long, and uncovered routes', () => {
  const set = setOf([
    ['2001:db8::/32', 48, 64500],
    ['2001:db8:ff00::/40', 40, 64502],
  ]);
  assert.deepEqual(summary(set, '2001:db8:1::/48', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(summary(set, '2001:db8:1::/49', 64500), ['invalid', 'length', 0, 0, 1]);
  assert.deepEqual(summary(set, '2001:db9::/48', 64500), ['not-found', '-', 0, 0, 0]);
  assert.deepEqual(summary(set, '2001:db8:ff00::/40', 64502), ['valid', '-', 1, 1, 0]);
  assert.deepEqual(summary(set, '2001:db8:ff00::/48', 64502), ['invalid', 'length', 0, 1, 1]);
  // An IPv4 route is never covered by IPv6 VRPs.
  assert.deepEqual(summary(set, '32.1.13.184/32', 64500), ['not-found', '-', 0, 0, 0]);
});

test('edges: a /0 VRP covers everything, a /32 or /128 only itself', () => {
  const set = setOf([
    ['0.0.0.0/0', 32, 64500],
    ['192.0.2.1/32', 32, 64501],
    ['::/0', 128, 64500],
    ['2001:db8::1/128', 128, 64501],
  ]);
  assert.deepEqual(summary(set, '255.255.255.255/32', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(summary(set, '0.0.0.0/0', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(summary(set, '192.0.2.1/32', 64501), ['valid', '-', 1, 1, 0]);
  assert.deepEqual(summary(set, '192.0.2.0/24', 64501), ['invalid', 'as', 0, 1, 0]);
  assert.deepEqual(summary(set, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', 64500), ['valid', '-', 1, 0, 0]);
  assert.deepEqual(summary(set, '2001:db8::1/128', 64501), ['valid', '-', 1, 1, 0]);
  assert.deepEqual(summary(setOf([['192.0.2.1/32', 32, 64501]]), '192.0.2.0/24', 64501), ['not-found', '-', 0, 0, 0]);
});

test('an empty set finds nothing, and a route beside a VRP is not covered by it', () => {
  assert.deepEqual(summary(setOf([]), '192.0.2.0/24', 64500), ['not-found', '-', 0, 0, 0]);
  assert.deepEqual(summary(setOf([]), '2001:db8::/32', 64500), ['not-found', '-', 0, 0, 0]);
  assert.deepEqual(summary(setOf([['192.0.2.0/24', 24, 64500]]), '192.0.3.0/24', 64500), ['not-found', '-', 0, 0, 0]);
});

test('siblings between a route and its covering VRP are passed over (the parent links)', () => {
  const set = setOf([
    ['10.0.0.0/8', 8, 64501],
    ['10.1.0.0/16', 16, 64502],
    ['10.2.0.0/16', 16, 64503],
    ['10.2.4.0/24', 24, 64504],
  ]);
  assert.deepEqual(summary(set, '10.3.0.0/16', 64501), ['invalid', 'length', 0, 0, 1]);
  assert.deepEqual(summary(set, '10.2.5.0/24', 64503), ['invalid', 'length', 0, 1, 1]);
  assert.deepEqual(summary(set, '10.2.4.0/24', 64504), ['valid', '-', 1, 2, 0]);
});

/** RFC 6811 read literally, over every VRP: what the index must agree with. */
function bruteForce(vrps: VrpEntry[], route: Cidr, asn: number) {
  let matched = 0;
  let unmatchedAs = 0;
  let unmatchedLength = 0;
  for (const vrp of vrps) {
    const covers =
      vrp.cidr.version === route.version &&
      vrp.cidr.prefixLength <= route.prefixLength &&
      vrp.cidr.first <= route.first &&
      vrp.cidr.last >= route.last;
    if (!covers) continue;
    if (vrp.asn !== asn || asn === 0) unmatchedAs++;
    else if (route.prefixLength > vrp.maxLength) unmatchedLength++;
    else matched++;
  }
  const state = matched > 0 ? 'valid' : unmatchedAs + unmatchedLength > 0 ? 'invalid' : 'not-found';
  return [state, matched, unmatchedAs, unmatchedLength];
}

test('agrees with RFC 6811 read literally on 4,000 random routes over 3,000 random nested VRPs', () => {
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const randomCidr = (version: 4 | 6, length: number): Cidr => {
    // Few distinct high bits so that prefixes nest and collide often.
    if (version === 4) return cidrOf({ version: 4, value: (random(4) << 28) + random(2 ** 20) * 256 }, length);
    return cidrOf(
      { version: 6, value: (0x2001n << 112n) + (BigInt(random(4)) << 100n) + (BigInt(random(2 ** 20)) << 80n) },
      length,
    );
  };
  const vrps: VrpEntry[] = [];
  for (let i = 0; i < 3000; i++) {
    const version = random(3) === 0 ? 6 : 4;
    const length = version === 4 ? 4 + random(25) : 8 + random(41);
    const bits = version === 4 ? 32 : 128;
    vrps.push({ cidr: randomCidr(version, length), maxLength: length + random(bits - length + 1), asn: random(6) });
  }
  const set = decodeVrps(encodeVrps(vrps, Number.NaN));
  // The set keeps one of each repeated VRP, as the literal reading must.
  const distinct = [
    ...new Map(
      vrps.map((vrp) => [`${vrp.cidr.first}/${vrp.cidr.prefixLength}-${vrp.maxLength}-${vrp.asn}`, vrp]),
    ).values(),
  ];
  assert.equal(set.size, distinct.length);
  for (let i = 0; i < 4000; i++) {
    const version = random(3) === 0 ? 6 : 4;
    const route = randomCidr(version, version === 4 ? 4 + random(29) : 8 + random(121));
    const asn = random(6);
    const result = validateRoute(set, { version, value: route.first } as never, route.prefixLength, asn);
    const got = [result.state, result.matched.length, result.unmatchedAs.length, result.unmatchedLength.length];
    assert.deepEqual(
      got,
      bruteForce(distinct, route, asn),
      `route ${JSON.stringify(route, (_k, v) => (typeof v === 'bigint' ? v.toString(16) : v))} AS${asn}`,
    );
  }
});
