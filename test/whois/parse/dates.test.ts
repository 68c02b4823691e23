import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseWhoisDate, numericDateOrder } from '../../../src/whois/parse/dates.ts';

// Each layout is copied from a reply in the shared corpora; the comment names the registry.
const cases: [written: string, expected: string | null][] = [
  ['2004-08-31T00:00:00Z', '2004-08-31'], // ICANN
  ['1998-10-21T00:00:00-0700', '1998-10-21'], // no shift to UTC, which would give 10-21 07:00
  ['2011-08-05T23:30:00+09:00', '2011-08-05'], // no shift to UTC, which would give 08-05 14:30
  ['2004-08-31 00:00:00', '2004-08-31'],
  ['2004-08-31 (YYYY-MM-DD)', '2004-08-31'], // TWNIC
  ['31-Aug-2004', '2004-08-31'], // Verisign (old), Nominet
  ['10-oct-2006', '2006-10-10'],
  ['31 Aug 2004', '2004-08-31'],
  ['30th April 2003 at 00:00:00.000', '2003-04-30'], // .gg
  ['31.08.2004', '2004-08-31'], // .cz, .fo
  ['30.6.2006 00:00:00', '2006-06-30'],
  ['31/08/2004', '2004-08-31'],
  ['11-07-2017', '2017-07-11'], // HKIRC, day first
  ['20040831', '2004-08-31'], // registro.br
  ['19990717 #175298', '1999-07-17'],
  ['2004/08/31', '2004-08-31'], // JPRS
  ['2023/04/01 01:05:57 (JST)', '2023-04-01'],
  ['2007. 03. 02.', '2007-03-02'], // KISA
  ['Tue Feb 10 09:42:42 2004', '2004-02-10'], // .kg
  ['Aug 31 2004', '2004-08-31'],
  ['2999-12-31T21:59:59Z', '2999-12-31'], // ZACR's "never expires" sentinel is what it says
  ['before Aug-1996', null], // Nominet: no day is given, so none is invented
  ['before 9 January 1996', null],
  ['2004-02-30', null],
  ['', null],
  ['not available', null],
];

test('normaliseWhoisDate reads the calendar date as written', () => {
  for (const [written, expected] of cases) {
    assert.equal(normaliseWhoisDate(written), expected, written);
  }
});

test('an ambiguous numeric date follows the order the reply proves elsewhere', () => {
  // Dot TK: '11/29/2016' can only be month first, so '01/03/2022' is the 3rd of January.
  const order = numericDateOrder(['11/29/2016', '01/03/2022']);
  assert.equal(order, 'month-first');
  assert.equal(normaliseWhoisDate('01/03/2022', order), '2022-01-03');
  assert.equal(normaliseWhoisDate('01/03/2022'), '2022-03-01');
});
