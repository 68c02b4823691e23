import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseQueryName, toPtrName } from '../../src/dns/names.ts';

describe('normaliseQueryName', () => {
  const accepted: Array<[string, string, string]> = [
    ['plain name', 'example.com', 'example.com'],
    ['upper case is lowered', 'WWW.Example.COM', 'www.example.com'],
    ['trailing dot is dropped', 'example.com.', 'example.com'],
    ['IDN becomes punycode', 'Bücher.example', 'xn--bcher-kva.example'],
    ['service name with underscores', '_sip._tcp.example.com', '_sip._tcp.example.com'],
    ['DMARC name', '_dmarc.example.com', '_dmarc.example.com'],
    ['single label', 'localhost', 'localhost'],
    ['the root', '.', '.'],
    ['63-character label', `${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
    ['253-character name', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, ''],
    // Taken as an address by the callers (PTR, or refused where a name is wanted).
    ['an IPv4 address as a dotted quad', '192.0.2.1', '192.0.2.1'],
    ['digits inside a name', '1.2.3.4.in-addr.arpa', '1.2.3.4.in-addr.arpa'],
    ['a last label that only starts like hex', 'ab.0xg', 'ab.0xg'],
    [
      'fullwidth letters and an ideographic full stop (IDNA maps them; no digit involved)',
      'ｅｘａｍｐｌｅ。com',
      'example.com',
    ],
  ];
  for (const [label, input, expected] of accepted) {
    it(`accepts ${label}`, () => {
      assert.deepEqual(normaliseQueryName(input), { ok: true, name: expected || input });
    });
  }

  const rejected: Array<[string, string, RegExp]> = [
    ['empty', '', /empty/],
    ['white space', 'exa mple.com', /white space/],
    ['empty label', 'a..example.com', /empty label/],
    ['leading dot', '.example.com', /empty label/],
    ['64-character label', `${'a'.repeat(64)}.com`, /longer than 63/],
    [
      '254-character name',
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`,
      /longer than 253/,
    ],
    ['slash', 'example.com/path', /character "\/"/],
    ['percent escape', 'a%41.com', /character "%"/],
    ['exclamation mark', 'a!b.com', /character "!"/],
    ['IPv6 literal', '2001:db8::1', /character ":"/],
    // A URL parser reads these as IPv4 addresses (127.0.0.1, 8.1.1.1, 127.0.0.1, 127.0.0.1,
    // 1.1.0.1, 0.0.0.123); none is a name, and none is what the user wrote.
    ['a short IPv4 form', '127.1', /ends in a number.*a\.b\.c\.d/],
    ['an octal IPv4 form', '010.1.1.1', /ends in a number/],
    ['a hex IPv4 form', '0x7f.1', /ends in a number/],
    ['an IPv4 address as one number', '2130706433', /ends in a number/],
    ['three numbers', '1.1.1', /ends in a number/],
    ['an all-numeric single label', '123', /ends in a number/],
    ['a name ending in a numeric label', 'host.123', /ends in a number/],
    // Regression (issue 18): IDNA maps these to ASCII digits, and 127.0.0.2 came out of /ssl's host.
    ['fullwidth digits (an address to IDNA)', '１２７.０.０.２', /non-ASCII numeric character "１" \(U\+FF11\)/],
    ['one fullwidth digit in an address', '127.0.0.２', /non-ASCII numeric character "２"/],
    ['circled digits', '①②⑦.0.0.1', /non-ASCII numeric character "①" \(U\+2460\)/],
    ['mathematical bold digits', '𝟏27.0.0.1', /non-ASCII numeric character "𝟏" \(U\+1D7CF\)/],
    ['superscript digits', 'host².example', /non-ASCII numeric character "²"/],
    ['Arabic-Indic digits', '١٢٧.0.0.1', /non-ASCII numeric character "١"/],
    ['a fullwidth digit inside a name', 'ex１.com', /non-ASCII numeric character "１"/],
  ];
  for (const [label, input, reason] of rejected) {
    it(`rejects ${label}`, () => {
      const result = normaliseQueryName(input);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, reason);
    });
  }
});

describe('toPtrName', () => {
  const cases: Array<[string, string, string]> = [
    ['IPv4', '192.0.2.20', '20.2.0.192.in-addr.arpa'],
    ['IPv6, nibbles of the full address', '2001:db8::1', `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`],
    // Unlike `dig -x`, where the PTR record actually lives: the IPv4 reverse zone.
    ['IPv4-mapped IPv6 as its IPv4 address', '::ffff:192.0.2.1', '1.2.0.192.in-addr.arpa'],
    ['a reverse name as it is', '20.2.0.192.IN-ADDR.ARPA.', '20.2.0.192.in-addr.arpa'],
  ];
  for (const [label, input, expected] of cases) {
    it(`maps ${label}`, () => {
      assert.deepEqual(toPtrName(input), { ok: true, name: expected });
    });
  }

  it('rejects a forward name and garbage', () => {
    assert.equal(toPtrName('example.com').ok, false);
    assert.equal(toPtrName('300.1.1.1').ok, false);
    assert.equal(toPtrName('').ok, false);
  });
});
