import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createAnonymityReader,
  createConnectionTypeReader,
  createLocationReader,
  createNetworkReader,
} from '../../../src/ipinfo/data/geo.ts';
import { expectedFromJson, expectedLocation, mmdb, mmdbScenario } from '../../support/mmdb-fixtures.ts';

const db = mmdb;

test('lookupLocation matches the GeoIP2/GeoLite2 City source records', () => {
  for (const name of ['GeoIP2-City-Test', 'GeoLite2-City-Test']) {
    const reader = createLocationReader(db(name));
    for (const ip of ['2.125.160.216', '81.2.69.142', '81.2.69.160', '2001:218::', '216.160.83.56', '89.160.20.112']) {
      const want = expectedLocation(name, ip);
      if (want === undefined) {
        assert.equal(reader.lookupLocation(ip), undefined, `${name} ${ip}`);
        continue;
      }
      assert.deepEqual(reader.lookupLocation(ip), want, `${name} ${ip}`);
    }
  }
});

test('lookupLocation: readable spot checks, omitted fields, bad input', () => {
  const reader = createLocationReader(db('GeoIP2-City-Test'));
  assert.deepEqual(reader.lookupLocation('216.160.83.56'), mmdbScenario('GeoIP2-City-Test.216.160.83.56'));
  const japan = reader.lookupLocation('2001:218::');
  assert.equal(japan?.countryCode, 'JP');
  assert.equal('city' in (japan ?? {}), false, 'a missing city is omitted, not undefined-valued');
  assert.deepEqual(reader.lookupLocation('::ffff:81.2.69.142'), reader.lookupLocation('81.2.69.142'));
  assert.deepEqual(reader.lookupCity('216.160.83.56')?.traits, {}, 'City records carry no user or connection type');
  assert.equal(reader.buildEpoch.getUTCFullYear() >= 2013, true);
  assert.equal(reader.lookupLocation('8.8.8.8'), undefined, 'no record');
  // Regression guard: mmdb-lib answers 'bad' with the 0.0.0.0/8 record instead of failing.
  assert.equal(reader.lookupLocation('bad'), undefined);
  assert.equal(reader.lookupLocation('1.2.3'), undefined);
  assert.throws(() => createLocationReader(db('GeoLite2-ASN-Test')), /expected a City or Country database/);
  const country = createLocationReader(db('GeoLite2-Country-Test'));
  assert.equal(country.lookupLocation('81.2.69.142')?.countryCode, 'GB');
});

test('lookupNetwork matches GeoLite2-ASN and GeoIP2-ISP source records, with the route', () => {
  type AsnJson = {
    autonomous_system_number?: number;
    autonomous_system_organization?: string;
    isp?: string;
    organization?: string;
  };
  for (const name of ['GeoLite2-ASN-Test', 'GeoIP2-ISP-Test']) {
    const reader = createNetworkReader(db(name));
    for (const ip of ['1.0.0.1', '1.128.0.0', '12.81.96.1', '2001:1700::1', '2600:6000::1', '1.0.128.1', '8.8.8.8']) {
      const expected = expectedFromJson<AsnJson>(name, ip);
      const got = reader.lookupNetwork(ip);
      if (expected === undefined) {
        assert.equal(got, undefined, `${name} ${ip}`);
        continue;
      }
      const r = expected.record;
      const want: Record<string, unknown> = { route: expected.route };
      const provider = r.isp ?? r.autonomous_system_organization ?? r.organization;
      if (provider !== undefined) want.provider = provider;
      if (r.autonomous_system_number !== undefined) {
        want.asn = `AS${r.autonomous_system_number}`;
        want.asnNumber = r.autonomous_system_number;
      }
      assert.deepEqual(got, want, `${name} ${ip}`);
    }
  }
  const asn = createNetworkReader(db('GeoLite2-ASN-Test'));
  assert.deepEqual(asn.lookupNetwork('1.0.0.1'), {
    provider: 'Google Inc.',
    asn: 'AS15169',
    asnNumber: 15169,
    route: '1.0.0.0/24',
  });
  assert.deepEqual(asn.lookupNetwork('12.81.96.1'), { asn: 'AS7018', asnNumber: 7018, route: '12.81.96.0/19' });
  assert.equal(createNetworkReader(db('GeoIP2-ISP-Test')).lookupNetwork('1.128.0.0')?.provider, 'Telstra Internet');
});

test('lookupAnonymity and lookupConnectionType', () => {
  const anonymity = createAnonymityReader(db('GeoIP2-Anonymous-IP-Test'));
  assert.deepEqual(anonymity.lookupAnonymity('1.124.213.1'), {
    anonymous: true,
    vpn: true,
    hosting: false,
    publicProxy: false,
    residentialProxy: false,
    tor: true,
  });
  assert.deepEqual(anonymity.lookupAnonymity('71.160.223.5'), {
    anonymous: true,
    vpn: false,
    hosting: true,
    publicProxy: false,
    residentialProxy: false,
    tor: false,
  });
  assert.equal(
    Object.values(anonymity.lookupAnonymity('8.8.8.8') ?? {}).some(Boolean),
    false,
    'unlisted means all false',
  );
  assert.equal(anonymity.lookupAnonymity('nope'), undefined);

  const connection = createConnectionTypeReader(db('GeoIP2-Connection-Type-Test'));
  assert.equal(connection.lookupConnectionType('1.0.0.1'), 'Cable/DSL');
  assert.equal(connection.lookupConnectionType('1.0.1.1'), 'Cellular');
  assert.equal(connection.lookupConnectionType('8.8.8.8'), undefined);
});
