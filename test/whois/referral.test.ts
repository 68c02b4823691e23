import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findReferral } from '../../src/whois/referral.ts';
import { fixturesPresent, fixturesRoot, skipMessage } from './fixtures-root.ts';

function fixture(relative: string): string {
  return readFileSync(path.join(fixturesRoot, relative), 'utf8');
}

test('findReferral on real replies', (t) => {
  if (!fixturesPresent) return t.skip(skipMessage);
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

test('findReferral ignores what cannot be followed over port 43', () => {
  assert.equal(findReferral('ReferralServer: rwhois://rwhois.example.net:4321\n'), null);
  assert.equal(findReferral('whois: https://dns.pl/en/whois\n'), null);
  assert.equal(findReferral('whois: This information is subject to an Acceptable Use Policy.\n'), null);
  assert.equal(findReferral('Registrar WHOIS Server: \n'), null);
  assert.equal(findReferral('ReferralServer: whois://whois.example.net:99999\n'), null);
});
