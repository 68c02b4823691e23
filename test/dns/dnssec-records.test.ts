import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import dnsPacket, { type Answer } from 'dns-packet';
import { cacheKey } from '../../src/dns/cache.ts';
import { withSignatures } from '../../src/dns/chain.ts';
import { formatMasterRdata, formatRecordValue } from '../../src/dns/format.ts';
import { checkReply, encodeQuery } from '../../src/dns/message.ts';
import { type DnsRecord, toDnsRecord } from '../../src/dns/records.ts';
import { decodeSvcbRdata } from '../../src/dns/svcb.ts';
import { queryableType, typeName, typeNumber } from '../../src/dns/types.ts';

/** The pure pieces behind dnssec=true and /api/v1/dns-json: query bits, types, SVCB, presentation. */

function record(answer: Answer): DnsRecord {
  const converted = toDnsRecord(answer);
  assert.ok(converted);
  return converted;
}

/** SVCB RDATA from its parts: priority, target labels, then [key, value] params. */
function svcbRdata(priority: number, target: string[], params: [number, Buffer][]): Buffer {
  const name = Buffer.concat([
    ...target.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)])),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(2);
  head.writeUInt16BE(priority);
  const encoded = params.map(([key, value]) => {
    const header = Buffer.alloc(4);
    header.writeUInt16BE(key, 0);
    header.writeUInt16BE(value.length, 2);
    return Buffer.concat([header, value]);
  });
  return Buffer.concat([head, name, ...encoded]);
}

const u16 = (...values: number[]) => Buffer.from(values.flatMap((value) => [value >> 8, value & 0xff]));

describe('the query bits', () => {
  it('a plain query sets RD only, and an EDNS OPT record without DO', () => {
    const packet = dnsPacket.decode(encodeQuery(1, { name: 'example.test', type: 'A' }));
    assert.equal(packet.flags, dnsPacket.RECURSION_DESIRED);
    const opt = packet.additionals?.[0] as { type: string; flag_do?: boolean } | undefined;
    assert.deepEqual([opt?.type, opt?.flag_do], ['OPT', false]);
  });

  it('dnssecOk sets DO in the OPT record; checkingDisabled and authenticatedData set CD and AD', () => {
    const flags = { dnssecOk: true, checkingDisabled: true, authenticatedData: true };
    const packet = dnsPacket.decode(encodeQuery(1, { name: 'example.test', type: 'HTTPS', flags }));
    assert.equal(packet.flag_cd, true);
    assert.equal(packet.flag_ad, true);
    const opt = packet.additionals?.[0] as { flag_do?: boolean } | undefined;
    assert.equal(opt?.flag_do, true);
    // HTTPS is asked for by its number: dns-packet has no name for it.
    assert.equal(packet.questions?.[0]?.type, 'UNKNOWN_65');
  });

  it("reads the reply's RD, RA, AD and CD bits, and matches an HTTPS question by number", () => {
    const reply = dnsPacket.encode({
      type: 'response',
      id: 7,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHENTIC_DATA,
      questions: [{ name: 'example.test', type: 'UNKNOWN_65' as never, class: 'IN' }],
    });
    const check = checkReply(reply, 7, { name: 'example.test', type: 'HTTPS' });
    assert.equal(check.kind, 'reply');
    assert.deepEqual(check.kind === 'reply' && check.reply.flags, { rd: true, ra: true, ad: true, cd: false });
  });

  it('keys the cache on the bits that change the answer, and keeps the plain key as it was', () => {
    assert.equal(cacheKey('Example.test', 'A'), 'example.test|A');
    assert.equal(cacheKey('example.test', 'A', {}), 'example.test|A');
    const keys = new Set([
      cacheKey('example.test', 'A'),
      cacheKey('example.test', 'A', { dnssecOk: true }),
      cacheKey('example.test', 'A', { checkingDisabled: true }),
      cacheKey('example.test', 'A', { authenticatedData: true }),
      cacheKey('example.test', 'A', { dnssecOk: true, checkingDisabled: true, authenticatedData: true }),
    ]);
    assert.equal(keys.size, 5);
  });
});

describe('record types by name and number', () => {
  const cases: Array<[string, string | undefined, string]> = [
    ['aaaa', 'AAAA', 'a mnemonic in any case'],
    ['28', 'AAAA', 'a number'],
    ['https', 'HTTPS', 'a type dns-packet has no name for'],
    ['64', 'SVCB', 'the same by number'],
    ['TYPE65', 'HTTPS', 'the RFC 3597 form'],
    ['65280', 'UNKNOWN_65280', 'a number with no mnemonic, as records of it are decoded'],
    ['ANY', undefined, 'ANY: not records of a type'],
    ['255', undefined, 'ANY by number'],
    ['AXFR', undefined, 'a zone transfer'],
    ['OPT', undefined, 'the EDNS pseudo-record'],
    ['0', undefined, 'below the range'],
    ['65536', undefined, 'above the range'],
    ['BOGUS', undefined, 'no such mnemonic'],
    ['*', undefined, "dns-packet's spelling of ANY"],
  ];
  for (const [input, expected, why] of cases) {
    it(`${input} -> ${expected ?? 'refused'} (${why})`, () => assert.equal(queryableType(input), expected));
  }
  it('names numbers and numbers names, TYPE<n> for the nameless', () => {
    assert.deepEqual([typeName(46), typeName(65), typeName(65280)], ['RRSIG', 'HTTPS', 'TYPE65280']);
    assert.deepEqual([typeNumber('rrsig'), typeNumber('UNKNOWN_99'), typeNumber('nope')], [46, 99, undefined]);
  });
});

describe('SVCB and HTTPS records (RFC 9460)', () => {
  it('decodes every registered key into its presentation form', () => {
    const rdata = svcbRdata(
      1,
      [],
      [
        [0, u16(1, 3)],
        [1, Buffer.from([2, ...Buffer.from('h2'), 5, ...Buffer.from('h3,29')])],
        [2, Buffer.alloc(0)],
        [3, u16(8443)],
        [4, Buffer.from([192, 0, 2, 1, 192, 0, 2, 2])],
        [5, Buffer.from('ech-config')],
        [6, Buffer.from('20010db8000000000000000000000001', 'hex')],
        [7, Buffer.from('/q{?dns}')],
        [65000, Buffer.alloc(0)],
        [65001, Buffer.from('a"b')],
      ],
    );
    assert.deepEqual(decodeSvcbRdata(rdata), {
      priority: 1,
      target: '.',
      params: [
        'mandatory=alpn,port',
        // A comma inside an ALPN id is escaped, and so is that escape (RFC 9460 Appendix A.1).
        'alpn="h2,h3\\\\,29"',
        'no-default-alpn',
        'port=8443',
        'ipv4hint=192.0.2.1,192.0.2.2',
        `ech=${Buffer.from('ech-config').toString('base64')}`,
        'ipv6hint=2001:db8::1',
        'dohpath="/q{?dns}"',
        'key65000',
        'key65001="a\\"b"',
      ],
    });
  });

  it('an AliasMode record: priority 0 and a target name', () => {
    const answer = {
      type: 'UNKNOWN_65',
      name: 'alias.example.test',
      ttl: 60,
      class: 'IN',
      data: svcbRdata(0, ['svc', 'example', 'test'], []),
    };
    const converted = record(answer as unknown as Answer);
    assert.equal(converted.type, 'HTTPS');
    assert.equal(formatRecordValue(converted), '0 svc.example.test');
    assert.equal(formatMasterRdata(converted), '0 svc.example.test.');
  });

  it('malformed RDATA (a param cut short, a bad port) is shown in the generic form, not guessed', () => {
    const cut = svcbRdata(1, [], [[3, u16(443)]]).subarray(0, -1);
    const badPort = svcbRdata(1, [], [[3, Buffer.from([1])]]);
    for (const rdata of [cut, badPort]) {
      assert.equal(decodeSvcbRdata(rdata), undefined);
      const converted = record({
        type: 'UNKNOWN_64',
        name: 'x.example.test',
        ttl: 60,
        class: 'IN',
        data: rdata,
      } as unknown as Answer);
      assert.equal(formatRecordValue(converted), `\\# ${rdata.length} ${rdata.toString('hex').toUpperCase()}`);
    }
  });
});

describe("dig's presentation form (DoH JSON data) beside the /dns value", () => {
  const rrsig = record({
    type: 'RRSIG',
    name: 'example.test',
    ttl: 300,
    class: 'IN',
    data: {
      typeCovered: 'A',
      algorithm: 13,
      labels: 2,
      originalTTL: 300,
      expiration: Date.UTC(2026, 11, 9, 3, 52, 11) / 1000,
      inception: Date.UTC(2026, 10, 25, 2, 22, 11) / 1000,
      keyTag: 20983,
      signersName: 'example.test',
      signature: Buffer.from('signature'),
    },
  });
  const cases: Array<[string, DnsRecord, string, string]> = [
    [
      'MX',
      record({
        type: 'MX',
        name: 'example.test',
        ttl: 1,
        class: 'IN',
        data: { preference: 10, exchange: 'mail.example.test' },
      }),
      '10 mail.example.test',
      '10 mail.example.test.',
    ],
    [
      'TXT',
      record({ type: 'TXT', name: 'example.test', ttl: 1, class: 'IN', data: ['v=spf1 ', 'say "hi" -all'] }),
      'v=spf1 say "hi" -all',
      '"v=spf1 " "say \\"hi\\" -all"',
    ],
    [
      'CNAME',
      record({ type: 'CNAME', name: 'www.example.test', ttl: 1, class: 'IN', data: 'example.test' }),
      'example.test',
      'example.test.',
    ],
    [
      'SOA',
      record({
        type: 'SOA',
        name: 'example.test',
        ttl: 1,
        class: 'IN',
        data: {
          mname: 'ns1.example.test',
          rname: 'hostmaster.example.test',
          serial: 1,
          refresh: 2,
          retry: 3,
          expire: 4,
          minimum: 5,
        },
      }),
      'ns1.example.test hostmaster.example.test 1 2 3 4 5',
      'ns1.example.test. hostmaster.example.test. 1 2 3 4 5',
    ],
    [
      'RRSIG',
      rrsig,
      `A 13 2 300 20261209035211 20261125022211 20983 example.test ${Buffer.from('signature').toString('base64')}`,
      `A 13 2 300 20261209035211 20261125022211 20983 example.test. ${Buffer.from('signature').toString('base64')}`,
    ],
    [
      'NSEC',
      record({
        type: 'NSEC',
        name: 'example.test',
        ttl: 1,
        class: 'IN',
        data: { nextDomain: 'a.example.test', rrtypes: ['A', 'UNKNOWN_65', 'RRSIG'] },
      }),
      'a.example.test A HTTPS RRSIG',
      'a.example.test. A HTTPS RRSIG',
    ],
    [
      'A',
      record({ type: 'A', name: 'example.test', ttl: 1, class: 'IN', data: '192.0.2.1' }),
      '192.0.2.1',
      '192.0.2.1',
    ],
  ];
  for (const [label, converted, value, master] of cases) {
    it(label, () => {
      assert.equal(formatRecordValue(converted), value);
      assert.equal(formatMasterRdata(converted), master);
    });
  }
});

describe('NSEC3 (RFC 5155)', () => {
  it('the example of RFC 5155 Appendix A, as dig prints it: salt in hex, the next hash in base32hex', () => {
    const nsec3 = record({
      type: 'NSEC3',
      name: '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example',
      ttl: 3600,
      class: 'IN',
      data: {
        algorithm: 1,
        flags: 1,
        iterations: 12,
        salt: Buffer.from('aabbccdd', 'hex'),
        nextDomain: Buffer.from('174eb2409fe28bcb4887a1836f957f0a8425e27b', 'hex'),
        rrtypes: ['MX', 'DNSKEY', 'NS', 'SOA', 'NSEC3PARAM', 'RRSIG'],
      },
    });
    assert.equal(
      formatMasterRdata(nsec3),
      '1 1 12 AABBCCDD 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR MX DNSKEY NS SOA NSEC3PARAM RRSIG',
    );
  });

  it('an empty salt is written -', () => {
    const nsec3 = record({
      type: 'NSEC3',
      name: 'x.example',
      ttl: 1,
      class: 'IN',
      data: {
        algorithm: 1,
        flags: 0,
        iterations: 0,
        salt: Buffer.alloc(0),
        nextDomain: Buffer.from([0xff]),
        rrtypes: ['A'],
      },
    });
    assert.equal(formatMasterRdata(nsec3), '1 0 0 - VS A');
  });
});

describe('RRSIGs beside the records they cover', () => {
  const a1 = record({ type: 'A', name: 'example.test', ttl: 1, class: 'IN', data: '192.0.2.1' });
  const a2 = record({ type: 'A', name: 'example.test', ttl: 1, class: 'IN', data: '192.0.2.2' });
  const cname = record({ type: 'CNAME', name: 'www.example.test', ttl: 1, class: 'IN', data: 'example.test' });
  const sig = (name: string, typeCovered: string) =>
    record({
      type: 'RRSIG',
      name,
      ttl: 1,
      class: 'IN',
      data: {
        typeCovered,
        algorithm: 13,
        labels: 2,
        originalTTL: 1,
        expiration: 0,
        inception: 0,
        keyTag: 1,
        signersName: 'example.test',
        signature: Buffer.from(typeCovered),
      },
    });

  it('puts each RRset’s signatures after it, and leaves out signatures of anything not shown', () => {
    const answers = [
      sig('example.test', 'A'),
      sig('www.example.test', 'CNAME'),
      sig('other.test', 'A'),
      sig('example.test', 'MX'),
      cname,
      a1,
      a2,
    ];
    assert.deepEqual(withSignatures([cname, a1, a2], answers), [cname, answers[1], a1, a2, answers[0]]);
  });
});
