import dnsPacket, { type Answer, type RecordType } from 'dns-packet';
import { type DnsRecord, toDnsRecord } from './records.ts';
import { packetTypeName, typeNumber } from './types.ts';

/**
 * The header and EDNS bits a query may set beyond RD. `dnssecOk`: the DO bit (RFC 3225), asking
 * for RRSIG and the other DNSSEC records; `checkingDisabled`: CD (RFC 4035 §3.2.2), asking a
 * validating resolver for the data even when it does not validate; `authenticatedData`: AD in the
 * query (RFC 6840 §5.7), asking the resolver to say whether it validated the answer without the
 * DNSSEC records DO would bring.
 */
export type QueryFlags = { dnssecOk?: boolean; checkingDisabled?: boolean; authenticatedData?: boolean };

export type DnsQuestion = { name: string; type: string; flags?: QueryFlags };

/** The header bits of a reply a caller may report (the DoH JSON answer does). */
export type ReplyFlags = { rd: boolean; ra: boolean; ad: boolean; cd: boolean };

/** A reply that matched its question, reduced to what the resolver uses. */
export type DnsReply = {
  rcode: string;
  truncated: boolean;
  authoritative: boolean;
  flags: ReplyFlags;
  answers: DnsRecord[];
  authority: DnsRecord[];
};

export type ReplyCheck = { kind: 'reply'; reply: DnsReply } | { kind: 'mismatch'; why: string };

/** The EDNS0 UDP payload size recommended by DNS Flag Day 2020: avoids IP fragmentation. */
export const EDNS_UDP_PAYLOAD_SIZE = 1232;

/** A recursive query (RD set) for one question, class IN, with an EDNS0 OPT record. */
export function encodeQuery(id: number, question: DnsQuestion): Buffer {
  const asked = question.flags ?? {};
  const headerFlags =
    dnsPacket.RECURSION_DESIRED |
    (asked.checkingDisabled ? dnsPacket.CHECKING_DISABLED : 0) |
    (asked.authenticatedData ? dnsPacket.AUTHENTIC_DATA : 0);
  const ednsFlags = asked.dnssecOk ? dnsPacket.DNSSEC_OK : 0;
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: headerFlags,
    questions: [{ name: question.name, type: packetTypeName(question.type) as RecordType, class: 'IN' }],
    additionals: [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: EDNS_UDP_PAYLOAD_SIZE,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: ednsFlags,
      },
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
    if (typeNumber(asked.type) !== typeNumber(question.type)) {
      return { kind: 'mismatch', why: `question type ${asked.type}` };
    }
    if ((asked.class ?? 'IN') !== 'IN') return { kind: 'mismatch', why: `question class ${asked.class}` };
  }
  return {
    kind: 'reply',
    reply: {
      rcode,
      truncated: packet.flag_tc,
      authoritative: packet.flag_aa,
      flags: { rd: packet.flag_rd, ra: packet.flag_ra, ad: packet.flag_ad, cd: packet.flag_cd },
      answers: toRecords(packet.answers),
      authority: toRecords(packet.authorities),
    },
  };
}

function toRecords(answers: Answer[] | undefined): DnsRecord[] {
  return (answers ?? []).flatMap((answer) => toDnsRecord(answer) ?? []);
}
