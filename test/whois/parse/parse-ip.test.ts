import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseIpWhois } from '../../../src/whois/parse/parse-ip.ts';
import type { ParsedIpWhois } from '../../../src/whois/parse/types.ts';
import { fixturesRoot } from '../fixtures-root.ts';

// secynic-ipwhois has no expected values; these were read off the raw replies by hand.
const expected: Record<string, ParsedIpWhois> = {
  '74.125.225.229': {
    network_name: 'GOOGLE',
    organisation: 'Google Inc.',
    cidr: ['74.125.0.0/16'],
    range: '74.125.0.0 - 74.125.255.255',
    country: 'US',
    registry: 'arin',
  },
  '62.239.237.1': {
    network_name: 'BT-CORPORATE',
    organisation: 'UDC',
    cidr: ['62.239.237.0/24'],
    range: '62.239.237.0 - 62.239.237.255',
    country: 'GB',
    registry: 'ripe',
  },
  '210.107.73.73': {
    network_name: 'BORANET-NET-210-107',
    organisation: 'DACOM Corp.',
    cidr: ['210.107.0.0/17'],
    range: '210.107.0.0 - 210.107.127.255',
    country: 'KR',
    registry: 'apnic',
  },
  // An inetnum range that is not one prefix is covered by several.
  '196.11.240.215': {
    network_name: 'NET-196-11-239-0',
    organisation: 'MTN SA',
    cidr: ['196.11.239.0/24', '196.11.240.0/22', '196.11.244.0/23', '196.11.246.0/24'],
    range: '196.11.239.0 - 196.11.246.255',
    country: 'ZA',
    registry: 'afrinic',
  },
  // LACNIC abbreviates the prefix and has no netname.
  '200.57.141.161': {
    network_name: null,
    organisation: 'Triara.com, S.A. de C.V.',
    cidr: ['200.57.128.0/19'],
    range: '200.57.128.0 - 200.57.159.255',
    country: 'MX',
    registry: 'lacnic',
  },
  '2a00:2381:ffff::1': {
    network_name: 'BT-WORLD-IPVSIX-LAUNCH',
    organisation: 'BT World IPv6 Launch',
    cidr: ['2a00:2381:ffff::/64'],
    range: '2a00:2381:ffff:: - 2a00:2381:ffff:0:ffff:ffff:ffff:ffff',
    country: 'GB',
    registry: 'ripe',
  },
};

test('parseIpWhois on one reply from each registry', () => {
  const samples = JSON.parse(readFileSync(path.join(fixturesRoot, 'secynic-ipwhois', 'whois.json'), 'utf8')) as Record<
    string,
    { response: string }
  >;
  for (const [address, want] of Object.entries(expected)) {
    const sample = samples[address];
    assert.ok(sample, address);
    assert.deepEqual(parseIpWhois(sample.response), want, address);
  }
  // Every sample yields at least a block and a country.
  for (const [address, sample] of Object.entries(samples)) {
    const parsed = parseIpWhois(sample.response);
    assert.ok(parsed.range && parsed.cidr.length > 0 && parsed.country && parsed.registry, address);
  }
});

test('parseIpWhois on an empty reply gives nulls', () => {
  assert.deepEqual(parseIpWhois(''), {
    network_name: null,
    organisation: null,
    cidr: [],
    range: null,
    country: null,
    registry: null,
  });
});
