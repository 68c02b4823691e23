import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readWhoisAnswers } from '../../src/whois/answers.ts';
import type { WhoisHop } from '../../src/whois/chain.ts';
import { findReferral } from '../../src/whois/referral.ts';
import { fixturesRoot } from './fixtures-root.ts';

const fixture = (relative: string) => readFileSync(path.join(fixturesRoot, relative), 'utf8');

function hop(raw: string | null, failure: WhoisHop['failure'] = null): WhoisHop {
  return {
    server: 'whois.example:43',
    address: '192.0.2.43',
    query: 'q',
    raw,
    referral: raw === null ? null : findReferral(raw),
    note: null,
    endedByReset: false,
    failure,
    durationMs: 1,
  };
}

const IANA_COM = 'likexian-whois-parser/noterror/com_com';
const VERISIGN_GOOGLE = 'weppos-whois-parser/responses/whois.verisign-grs.com/com/status_registered.txt';
const MARKMONITOR_THROTTLED = 'weppos-whois-parser/responses/whois.markmonitor.com/response_throttled.txt';
const IANA_NOT_ASSIGNED = 'weppos-whois-parser/responses/whois.iana.org/tld/status_not_assigned.txt';

test("IANA's record of the TLD is never read as the domain's", () => {
  assert.deepEqual(readWhoisAnswers({ kind: 'domain', name: 'google.com' }, [hop(fixture(IANA_COM))]), {
    found: false,
  });
  // ... and when the registry after it failed, there is still nothing about the domain.
  assert.deepEqual(
    readWhoisAnswers({ kind: 'domain', name: 'google.com' }, [
      hop(fixture(IANA_COM)),
      hop(null, { kind: 'timeout', message: 'no answer' }),
    ]),
    { found: false },
  );
});

test("a registrar's throttled reply leaves the registry's record as the answer", () => {
  const reading = readWhoisAnswers({ kind: 'domain', name: 'google.com' }, [
    hop(fixture(IANA_COM)),
    hop(fixture(VERISIGN_GOOGLE)),
    hop(fixture(MARKMONITOR_THROTTLED)),
  ]);
  assert.ok(reading.found);
  assert.equal(reading.hop, 1);
  assert.equal(reading.record.registrar, 'MarkMonitor Inc.');
  assert.equal(reading.record.creation_date, '1997-09-15');
});

test('a not-found answer is an answer: registered false, nothing merged into it', () => {
  const reading = readWhoisAnswers({ kind: 'domain', name: 'nothing-here.com' }, [
    hop(fixture(IANA_COM)),
    hop(fixture('likexian-whois-parser/notfound/com_likexian-have-no-money-to-register.com')),
  ]);
  assert.ok(reading.found);
  assert.equal(reading.record.registered, false);
  assert.equal(reading.record.creation_date, null);
  // IANA's answer for a TLD that is not delegated says so: the name cannot be registered.
  const undelegated = readWhoisAnswers({ kind: 'domain', name: 'x.eh' }, [hop(fixture(IANA_NOT_ASSIGNED))]);
  assert.ok(undelegated.found);
  assert.equal(undelegated.record.registered, false);
});

test('an empty or unreadable reply is no answer', () => {
  assert.deepEqual(readWhoisAnswers({ kind: 'domain', name: 'a.example' }, [hop('\n')]), { found: false });
  assert.deepEqual(readWhoisAnswers({ kind: 'domain', name: 'a.example' }, [hop('Query rate exceeded.\n')]), {
    found: false,
  });
});

test("an address: IANA's referring block is not the answer, its own record of unallocated space is", () => {
  const referring = 'refer:        whois.arin.net\n\ninetnum:      74.0.0.0 - 74.255.255.255\norganisation: ARIN\n';
  assert.deepEqual(
    readWhoisAnswers({ kind: 'ip', address: '74.125.0.1' }, [
      hop(referring),
      hop(null, { kind: 'refused', message: 'x' }),
    ]),
    { found: false },
  );
  const reserved =
    'inetnum:      10.0.0.0 - 10.255.255.255\norganisation: IANA - Private Use\nstatus:       RESERVED\n';
  const reading = readWhoisAnswers({ kind: 'ip', address: '10.1.2.3' }, [hop(reserved)]);
  assert.ok(reading.found);
  assert.deepEqual(reading.record.cidr, ['10.0.0.0/8']);
  assert.equal(reading.record.registered, null);
});
