import dnsPacket, { type Answer, type RecordType } from 'dns-packet';
import { type DnsRecord, toDnsRecord } from './records.ts';

export type DnsQuestion = { name: string; type: string };

/** A reply that matched its question, reduced to what the resolver uses. */
export type DnsReply = {
  rcode: string;
  truncated: boolean;
  authoritative: boolean;
  answers: DnsRecord[];
  authority: DnsRecord[];
};

export type ReplyCheck = { kind: 'reply'; reply: DnsReply } | { kind: 'mismatch'; why: string };

/** The EDNS0 UDP payload size recommended by DNS Flag Day 2020: avoids IP fragmentation. */
export const EDNS_UDP_PAYLOAD_SIZE = 1232;

/** A recursive query (RD set) for one question, class IN, with an EDNS0 OPT record. */
export function encodeQuery(id: number, question: DnsQuestion): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: question.name, type: question.type as RecordType, class: 'IN' }],
    additionals: [
      { type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_PAYLOAD_SIZE, extendedRcode: 0, ednsVersion: 0, flags: 0 },
    ] as unknown as Answer[],
  });
}

/**
 * Decodes a reply and checks it answers the question asked: same id, a response, and the same
 * name (case-insensitively, as 0x20 randomisation requires), type and class. Anything else is a
 * mismatch that the caller ignores, as a spoofed or stale datagram would be.
 */
export function checkReply(bytes: Buffer, id: number, question: DnsQuestion): ReplyCheck {
  let packet: ReturnType<typeof dnsPacket.decode>;
  try {
    packet = dnsPacket.decode(bytes);
  } catch (error) {
    return { kind: 'mismatch', why: `undecodable: ${(error as Error).message}` };
  }
  if (packet.id !== id) return { kind: 'mismatch', why: `id ${packet.id} is not ${id}` };
  if (!packet.flag_qr) return { kind: 'mismatch', why: 'not a response' };
  const rcode = (packet as { rcode?: string }).rcode ?? 'NOERROR';
  const questions = packet.questions ?? [];
  // Servers may send FORMERR, NOTIMP or REFUSED without the question section (RFC 1035 allows it);
  // such an error is never cached nor shown as data, so the id is enough for it.
  const questionless = questions.length === 0 && rcode !== 'NOERROR' && rcode !== 'NXDOMAIN';
  if (!questionless) {
    const asked = questions[0];
    if (questions.length !== 1 || asked === undefined) return { kind: 'mismatch', why: 'not one question' };
    if (asked.name.toLowerCase() !== question.name.toLowerCase()) {
      return { kind: 'mismatch', why: `question name ${asked.name}` };
    }
    if (asked.type !== question.type) return { kind: 'mismatch', why: `question type ${asked.type}` };
    if ((asked.class ?? 'IN') !== 'IN') return { kind: 'mismatch', why: `question class ${asked.class}` };
  }
  return {
    kind: 'reply',
    reply: {
      rcode,
      truncated: packet.flag_tc,
      authoritative: packet.flag_aa,
      answers: toRecords(packet.answers),
      authority: toRecords(packet.authorities),
    },
  };
}

function toRecords(answers: Answer[] | undefined): DnsRecord[] {
  return (answers ?? []).flatMap((answer) => toDnsRecord(answer) ?? []);
}
