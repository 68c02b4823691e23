import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseDomainWhois } from '../../../src/whois/parse/parse-domain.ts';
import type { ParsedDomainWhois } from '../../../src/whois/parse/types.ts';
import { fixturesRoot } from '../fixtures-root.ts';

function parseFixture(relative: string, query?: string): ParsedDomainWhois {
  return parseDomainWhois(readFileSync(path.join(fixturesRoot, relative), 'utf8'), query);
}

test('Verisign .com registry reply (ICANN layout)', () => {
  const parsed = parseFixture('weppos-whois-parser/responses/whois.verisign-grs.com/com/status_registered.txt');
  assert.equal(parsed.domain_name, 'google.com');
  assert.equal(parsed.registrar, 'MarkMonitor Inc.');
  assert.equal(parsed.creation_date, '1997-09-15');
  assert.equal(parsed.expiration_date, '2020-09-14');
  assert.equal(parsed.updated_date, '2011-07-20');
  assert.deepEqual(parsed.name_servers, ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com']);
  assert.equal(parsed.registered, true);
});

test('Nominet .uk block layout: indented values under headers', () => {
  const parsed = parseFixture('likexian-whois-parser/noterror/uk_google.uk');
  assert.equal(parsed.domain_name, 'google.uk');
  assert.equal(parsed.registrar, 'Markmonitor Inc. t/a MarkMonitor Inc.');
  assert.equal(parsed.creation_date, '2014-06-11');
  assert.equal(parsed.expiration_date, '2020-06-11');
  assert.equal(parsed.updated_date, '2019-05-10');
  assert.deepEqual(parsed.name_servers, [
    'ns1.googledomains.com',
    'ns2.googledomains.com',
    'ns3.googledomains.com',
    'ns4.googledomains.com',
  ]);
});

test('JPRS bracketed keys and Japanese dates', () => {
  const parsed = parseFixture('likexian-whois-parser/noterror/jp_google.co.jp');
  assert.equal(parsed.domain_name, 'google.co.jp');
  assert.equal(parsed.creation_date, '2001-03-22');
  assert.equal(parsed.updated_date, '2023-04-01');
  assert.equal(parsed.expiration_date, null);
  assert.deepEqual(parsed.name_servers, ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com']);
});

test('AFNIC RPSL objects: dates come from the domain object, not the contacts after it', () => {
  const parsed = parseFixture('likexian-whois-parser/noterror/fr_ovh.fr');
  assert.equal(parsed.domain_name, 'ovh.fr');
  assert.equal(parsed.registrar, 'OVH');
  assert.equal(parsed.creation_date, '1999-11-11');
  assert.equal(parsed.expiration_date, '2019-11-11');
  assert.deepEqual(parsed.name_servers, ['dns.ovh.net', 'dns10.ovh.net', 'ns.ovh.net', 'ns10.ovh.net']);
  assert.deepEqual(parsed.status, ['ACTIVE']);
});

test('registro.br: compact dates and name servers with glue addresses', () => {
  const parsed = parseFixture('likexian-whois-parser/noterror/br_unip.br');
  assert.equal(parsed.creation_date, '1999-07-17');
  assert.deepEqual(parsed.name_servers, ['datcenter.unip.br', 'datcenter2.unip.br']);
});

test('DENIC: no dates given means null, not a guess', () => {
  const parsed = parseFixture('likexian-whois-parser/noterror/de_google.de');
  assert.equal(parsed.creation_date, null);
  assert.equal(parsed.expiration_date, null);
  assert.equal(parsed.updated_date, '2018-03-12');
  assert.deepEqual(parsed.status, ['connect']);
});

test('.it: Registrar and Nameservers headers without colons', () => {
  const parsed = parseFixture('weppos-whois-parser/responses/whois.nic.it/it/status_registered.txt');
  assert.equal(parsed.domain_name, 'google.it');
  assert.equal(parsed.registrar, 'MarkMonitor International Limited');
  assert.equal(parsed.creation_date, '1999-12-10');
  assert.deepEqual(parsed.name_servers, ['ns1.google.com', 'ns4.google.com', 'ns2.google.com', 'ns3.google.com']);
});

test('ICANN statuses lose their URL', () => {
  const parsed = parseFixture('richardpenman-whois/whois/abc.xyz');
  assert.ok(parsed.status.length > 0);
  for (const status of parsed.status) assert.doesNotMatch(status, /https?:/);
});

// Regression: Verisign lists every name containing the query; the record for the queried name wins.
test('a multi-record Verisign reply is read at the queried record', () => {
  const parsed = parseFixture('richardpenman-whois/whois/microsoft.com', 'microsoft.com');
  assert.equal(parsed.domain_name, 'microsoft.com');
  assert.equal(parsed.registrar, 'TUCOWS INC.');
  assert.equal(parsed.creation_date, '1991-05-02');
  assert.equal(parsed.expiration_date, '2014-05-03');
});

test('not-found replies are registered: false', () => {
  const parsed = parseFixture('likexian-whois-parser/notfound/de_likexian-have-no-money-to-register.de');
  assert.equal(parsed.registered, false);
  assert.deepEqual(parsed.name_servers, []);
});
