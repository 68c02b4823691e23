import assert from 'node:assert/strict';
import { test } from 'node:test';
import { continentOf, parseNodeLocation } from '../../src/mesh/location.ts';

test('NODE_LOCATION: keys in any order, the continent from the country, numbers checked', () => {
  assert.deepEqual(parseNodeLocation('country=de,city=Frankfurt am Main'), {
    country: 'DE',
    city: 'Frankfurt am Main',
    continent: 'EU',
  });
  assert.deepEqual(parseNodeLocation(' latitude=-33.87 , longitude=151.21, country=AU '), {
    latitude: -33.87,
    longitude: 151.21,
    country: 'AU',
    continent: 'OC',
  });
  assert.deepEqual(parseNodeLocation('continent=SA'), { continent: 'SA' });
  assert.equal(parseNodeLocation('  '), null);
});

test('NODE_LOCATION: a bad part is named', () => {
  assert.throws(() => parseNodeLocation('country=Germany'), /ISO 3166 two-letter code, got "Germany"/);
  assert.throws(() => parseNodeLocation('region=Hesse'), /"region=Hesse" is not one of country=/);
  assert.throws(() => parseNodeLocation('latitude=91'), /latitude must be a number from -90 to 90/);
  assert.throws(() => parseNodeLocation('longitude=1e2'), /longitude must be a number/);
  assert.throws(() => parseNodeLocation('city='), /city has no value/);
  assert.throws(() => parseNodeLocation('continent=XX'), /continent must be one of AF AN AS EU NA OC SA/);
});

test('every continent has its countries: a few from each', () => {
  for (const [country, continent] of [
    ['NG', 'AF'],
    ['AQ', 'AN'],
    ['JP', 'AS'],
    ['FR', 'EU'],
    ['CA', 'NA'],
    ['NZ', 'OC'],
    ['BR', 'SA'],
  ]) {
    assert.equal(continentOf(country as string), continent, country);
  }
});
