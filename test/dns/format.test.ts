import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { formatRecordValue } from '../../src/dns/format.ts';
import { toDnsRecord } from '../../src/dns/records.ts';

// Omit over each member of the union, so `data` stays tied to `type`.
type Unnamed<T> = T extends unknown ? Omit<T, 'name'> : never;

// Records go through toDnsRecord as the client's do, so the decoded shapes dns-packet gives are
// what is formatted.
function format(answer: Unnamed<Answer>): string {
  const record = toDnsRecord({ name: 'example.test', ttl: 300, class: 'IN', ...answer } as Answer);
  assert.ok(record);
  return formatRecordValue(record);
}

// The record types the API answers, each with its value: shared with test/dns/route.test.ts.
const recordValues: { cases: { label: string; record: Answer; value: string }[] } = JSON.parse(
  readFileSync(new URL('../fixtures/dns/record-values.json', import.meta.url), 'utf8'),
);

describe('formatRecordValue', () => {
  for (const { label, record, value } of recordValues.cases) {
    it(`formats ${label} (record-values.json)`, () => {
      assert.equal(format(record), value);
    });
  }

  const cases: Array<[string, Unnamed<Answer>, string]> = [
    ['AAAA longest zero run compressed', { type: 'AAAA', data: '2001:db8:0:0:1:0:0:1' }, '2001:db8::1:0:0:1'],
    [
      'MX keeps the case sent',
      { type: 'MX', data: { preference: 20, exchange: 'MX2.Example.test' } },
      '20 MX2.Example.test',
    ],
    ['null MX', { type: 'MX', data: { preference: 0, exchange: '.' } }, '0 .'],
    ['TXT one string', { type: 'TXT', data: ['v=spf1 -all'] }, 'v=spf1 -all'],
    ['CAA', { type: 'CAA', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } }, '0 issue "letsencrypt.org"'],
    [
      'CAA critical',
      { type: 'CAA', data: { flags: 128, tag: 'iodef', value: 'mailto:a@b' } },
      '128 iodef "mailto:a@b"',
    ],
    [
      'DS',
      { type: 'DS', data: { keyTag: 2371, algorithm: 13, digestType: 2, digest: Buffer.from('abcd', 'hex') } },
      '2371 13 2 ABCD',
    ],
    ['DNSKEY', { type: 'DNSKEY', data: { flags: 257, algorithm: 13, key: Buffer.from('key') } }, '257 3 13 a2V5'],
    [
      'TLSA',
      { type: 'TLSA', data: { usage: 3, selector: 1, matchingType: 1, certificate: Buffer.from('0102', 'hex') } },
      '3 1 1 0102',
    ],
    ['SSHFP', { type: 'SSHFP', data: { algorithm: 4, hash: 2, fingerprint: 'ABCDEF' } }, '4 2 abcdef'],
    ['HINFO', { type: 'HINFO', data: { cpu: 'RFC8482', os: '' } }, '"RFC8482" ""'],
    [
      'NAPTR',
      {
        type: 'NAPTR',
        data: {
          order: 100,
          preference: 10,
          flags: 'S',
          services: 'SIP+D2U',
          regexp: '',
          replacement: '_sip._udp.example.test',
        },
      },
      '100 10 "S" "SIP+D2U" "" _sip._udp.example.test',
    ],
    ['unknown type in RFC 3597 form', { type: 'URI', data: Buffer.from('0a0b', 'hex') }, '\\# 2 0A0B'],
  ];
  for (const [label, answer, expected] of cases) {
    it(`formats ${label}`, () => {
      assert.equal(format(answer), expected);
    });
  }

  it('keeps the TXT strings apart in the record data', () => {
    const record = toDnsRecord({
      type: 'TXT',
      name: 'a.test',
      ttl: 1,
      data: [Buffer.from('one '), Buffer.from('two')],
    });
    assert.deepEqual(record?.data, ['one ', 'two']);
  });

  it('shows TXT bytes as sent: UTF-8 as text, anything else in presentation form (\\DDD), never U+FFFD', () => {
    const txt = (...parts: number[][]) =>
      toDnsRecord({ type: 'TXT', name: 'a.test', ttl: 1, data: parts.map((bytes) => Buffer.from(bytes)) })?.data;
    // 'héllo' in UTF-8, with a byte-order mark kept.
    assert.deepEqual(txt([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]), ['\ufeffhéllo']);
    // Not UTF-8: 0xff 0xfe, 'A', a backslash, a NUL.
    assert.deepEqual(txt([0xff, 0xfe, 0x41, 0x5c, 0x00]), ['\\255\\254A\\\\\\000']);
    // Each string on its own: one bad string does not change its neighbour.
    assert.deepEqual(txt([0x6f, 0x6b], [0x80]), ['ok', '\\128']);
  });

  it('skips the EDNS OPT pseudo-record and reads a TTL with the top bit set as 0 (RFC 2181 §8)', () => {
    assert.equal(
      toDnsRecord({
        type: 'OPT',
        name: '.',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: [],
      }),
      undefined,
    );
    assert.equal(toDnsRecord({ type: 'A', name: 'a.test', ttl: 0x80000000, data: '192.0.2.1' })?.ttl, 0);
  });
});
