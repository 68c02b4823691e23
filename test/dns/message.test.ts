import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import dnsPacket, { type Packet } from 'dns-packet';
import { checkReply, EDNS_UDP_PAYLOAD_SIZE, encodeQuery } from '../../src/dns/message.ts';

const question = { name: 'www.example.test', type: 'A' };

function reply(overrides: Partial<Packet> & { rcode?: number } = {}): Buffer {
  const { rcode = 0, ...packet } = overrides;
  return dnsPacket.encode({
    type: 'response',
    id: 7,
    flags: rcode,
    questions: [{ name: 'www.example.test', type: 'A', class: 'IN' }],
    answers: [{ type: 'A', name: 'www.example.test', ttl: 60, data: '192.0.2.1' }],
    ...packet,
  });
}

describe('encodeQuery', () => {
  it('asks one recursive question with an EDNS0 OPT record', () => {
    const decoded = dnsPacket.decode(encodeQuery(7, question));
    assert.equal(decoded.id, 7);
    assert.equal(decoded.flag_rd, true);
    assert.deepEqual(decoded.questions, [{ name: 'www.example.test', type: 'A', class: 'IN' }]);
    const opt = decoded.additionals?.[0];
    assert.equal(opt?.type, 'OPT');
    if (opt?.type === 'OPT') assert.equal(opt.udpPayloadSize, EDNS_UDP_PAYLOAD_SIZE);
  });
});

describe('checkReply', () => {
  it('accepts the reply to the question', () => {
    const check = checkReply(reply(), 7, question);
    assert.equal(check.kind, 'reply');
  });

  it('matches the question name case-insensitively (0x20 randomisation)', () => {
    const bytes = reply({ questions: [{ name: 'WWW.Example.TEST', type: 'A', class: 'IN' }] });
    assert.equal(checkReply(bytes, 7, question).kind, 'reply');
  });

  const mismatches: Array<[string, Buffer, RegExp]> = [
    ['another id', reply({ id: 8 }), /id 8/],
    ['a query instead of a response', reply({ type: 'query' }), /not a response/],
    ['another name', reply({ questions: [{ name: 'evil.test', type: 'A', class: 'IN' }] }), /question name/],
    ['another type', reply({ questions: [{ name: 'www.example.test', type: 'AAAA', class: 'IN' }] }), /question type/],
    ['another class', reply({ questions: [{ name: 'www.example.test', type: 'A', class: 'CH' }] }), /question class/],
    ['no question in a NOERROR answer', reply({ questions: [] }), /not one question/],
    ['garbage', Buffer.from('not dns at all'), /undecodable/],
  ];
  for (const [label, bytes, why] of mismatches) {
    it(`ignores ${label}`, () => {
      const check = checkReply(bytes, 7, question);
      assert.equal(check.kind, 'mismatch');
      if (check.kind === 'mismatch') assert.match(check.why, why);
    });
  }

  it('accepts an error rcode sent without the question section', () => {
    const check = checkReply(reply({ questions: [], answers: [], rcode: 1 }), 7, question);
    assert.equal(check.kind === 'reply' && check.reply.rcode, 'FORMERR');
  });
});
