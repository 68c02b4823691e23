import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findReferral, referralScheme } from '../../src/whois/referral.ts';
import { fixturesRoot } from './fixtures-root.ts';

function fixture(relative: string): string {
  return readFileSync(path.join(fixturesRoot, relative), 'utf8');
}

test('findReferral on real replies', () => {
  // Verisign thin registry: the registrar's server.
  assert.equal(
    findReferral(fixture('weppos-whois-parser/responses/whois.verisign-grs.com/com/status_registered.txt')),
    'whois.markmonitor.com',
  );
  // IANA's record for a TLD names the TLD's server on a 'whois:' line.
  assert.equal(findReferral(fixture('likexian-whois-parser/noterror/com_com')), 'whois.verisign-grs.com');
  assert.equal(findReferral(fixture('richardpenman-whois/whois/seal.jobs')), 'whois.godaddy.com');
  // A not-found answer refers nowhere.
  assert.equal(
    findReferral(fixture('likexian-whois-parser/notfound/com_likexian-have-no-money-to-register.com')),
    null,
  );
});

// The corpora hold no IANA 'refer:' answer and no ARIN 'ReferralServer:' line; these excerpts follow
// the layouts those servers print.
test('findReferral reads IANA refer: and ARIN ReferralServer:', () => {
  assert.equal(
    findReferral('% IANA WHOIS server\n\nrefer:        whois.verisign-grs.com\n\ndomain:       COM\n'),
    'whois.verisign-grs.com',
  );
  assert.equal(
    findReferral('NetRange: 1.0.0.0 - 1.255.255.255\nReferralServer:  whois://whois.apnic.net\n'),
    'whois.apnic.net',
  );
  assert.equal(findReferral('ReferralServer: whois://WHOIS.RIPE.NET:43\n'), 'whois.ripe.net:43');
});

test('findReferral reads IP addresses, and returns other protocols as written for the chain to report', () => {
  assert.equal(findReferral('refer: 192.0.2.43\n'), '192.0.2.43');
  assert.equal(findReferral('ReferralServer: whois://192.0.2.43:4343\n'), '192.0.2.43:4343');
  assert.equal(findReferral('refer: [2001:db8::43]:43\n'), '[2001:db8::43]:43');
  assert.equal(findReferral('refer: 2001:DB8::43\n'), '2001:db8::43');
  assert.equal(findReferral('ReferralServer: rwhois://rwhois.example.net:4321\n'), 'rwhois://rwhois.example.net:4321');
  assert.equal(referralScheme('rwhois://rwhois.example.net:4321'), 'rwhois');
  assert.equal(findReferral('whois: https://dns.pl/en/whois\n'), 'https://dns.pl/en/whois');
  assert.equal(referralScheme('https://dns.pl/en/whois'), 'https');
  assert.equal(referralScheme('whois.ripe.net:43'), null);
  assert.equal(
    findReferral('whois: https://registry.example/whois\nRegistrar WHOIS Server: whois.registrar.example\n'),
    'whois.registrar.example',
    'a port-43 server named later wins',
  );
});

test('findReferral ignores what names no server', () => {
  assert.equal(findReferral('whois: This information is subject to an Acceptable Use Policy.\n'), null);
  assert.equal(findReferral('Registrar WHOIS Server: \n'), null);
  assert.equal(findReferral('ReferralServer: whois://whois.example.net:99999\n'), null);
  assert.equal(findReferral('refer: 999.1.1.1\n'), null);
  assert.equal(findReferral('refer: 192.0.2.1:0\n'), null);
});
