import { isIP } from 'node:net';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import { cidrOf, formatCidr } from '../net/cidr.ts';
import type { IpAddress } from '../net/ip-address.ts';
import { dnskeyRecord, signRrset, type ZoneKey } from './dnssec.ts';
import { parseTokenLabel, type TokenName } from './tokens.ts';

export interface ZoneSettings {
  /** Lower case, without the trailing dot. */
  readonly zone: string;
  readonly addresses: readonly string[];
  readonly key: ZoneKey;
}

/** What one query asked and what to send back (null: nothing, for a packet that is no query). */
export interface ZoneAnswer {
  readonly response: Buffer | null;
  /** The test name it asked about, if any: the listener records the resolver. */
  readonly token?: { token: string; name: TokenName };
  readonly ecs: string | null;
}

const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
/** Without EDNS a UDP answer is at most 512 bytes (RFC 1035); with it, no more than this (DNS Flag Day 2020). */
const UDP_PLAIN_LIMIT = 512;
const UDP_EDNS_LIMIT = 1232;
const TTL = { apex: 3600, data: 60, whoami: 0, negative: 60 } as const;
const ECS_OPTION = 8;

type Opt = { udpPayloadSize: number; flags: number; options: { code: number; data: Buffer }[] };
type Rrsets = Map<string, Answer[]>;

/**
 * The authoritative answer to one packet: only the zone (REFUSED elsewhere), never recursion (RA
 * clear), signed when the query sets DO, denial by "black lies" (RFC 4470, compact denial: a NSEC
 * for the name asked only, so nothing can be walked and nothing has to be kept in order).
 */
export function answerQuery(query: Buffer, peer: string, tcp: boolean, zone: ZoneSettings, nowMs: number): ZoneAnswer {
  // Shorter than a header, or itself a response: answering could start a loop between two servers.
  if (query.length < 12 || (query[2] as number) & 0x80) return { response: null, ecs: null };
  let packet: Packet;
  try {
    packet = dnsPacket.decode(query);
  } catch {
    return { response: headerOnly(query, RCODE.FORMERR), ecs: null };
  }
  if ((packet as { opcode?: string }).opcode !== 'QUERY')
    return { response: headerOnly(query, RCODE.NOTIMP), ecs: null };
  const question = packet.questions?.[0];
  if (question === undefined || packet.questions?.length !== 1) {
    return { response: headerOnly(query, RCODE.FORMERR), ecs: null };
  }
  const opt = packet.additionals?.find((record) => record.type === 'OPT') as Opt | undefined;
  const ecsOption = opt?.options.find((option) => option.code === ECS_OPTION);
  const ecs = ecsOption === undefined ? null : ecsText(ecsOption.data);
  const reply = (rcode: number, sections: Sections = {}) =>
    encodeLimited(packet, question, rcode, sections, replyOpt(opt, ecsOption, ecs), tcp);

  const type: string = question.type;
  const name = question.name.toLowerCase();
  const inZone = name === zone.zone || name.endsWith(`.${zone.zone}`);
  if (!inZone || question.class !== 'IN' || type === 'AXFR' || type === 'IXFR') {
    return { response: reply(RCODE.REFUSED), ecs };
  }
  const relative = name === zone.zone ? '' : name.slice(0, -zone.zone.length - 1);
  const token = relative.includes('.') ? null : parseTokenLabel(relative);
  const rrsets = rrsetsAt(relative, question.name, zone, peer, ecs);
  const signed = opt !== undefined && (opt.flags & dnsPacket.DNSSEC_OK) !== 0;
  const seconds = Math.floor(nowMs / 1000);
  const sign = (rrset: Answer[]): Answer[] =>
    signed ? [...rrset, signRrset(rrset, zone.zone, zone.key, seconds, token?.name === 'bad')] : rrset;
  const asked = token === null ? {} : { token };

  // RFC 8482: ANY is answered by one small synthesised HINFO, never by everything the name has.
  if (type === 'ANY') {
    const hinfo = [record(question.name, 'HINFO', TTL.data, { cpu: 'RFC8482', os: '' })];
    return { response: reply(RCODE.NOERROR, { answers: sign(hinfo) }), ecs, ...asked };
  }
  const rrset = rrsets?.get(type);
  if (rrset !== undefined) return { response: reply(RCODE.NOERROR, { answers: sign(rrset) }), ecs, ...asked };

  const soa = sign([soaRecord(zone.zone)]);
  if (!signed) {
    return {
      response: reply(rrsets === undefined ? RCODE.NXDOMAIN : RCODE.NOERROR, { authorities: soa }),
      ecs,
      ...asked,
    };
  }
  // A black lie: the name exists with no type but these, so the missing one is denied by one NSEC.
  const types = [...(rrsets?.keys() ?? []), 'RRSIG', 'NSEC'];
  const nsec = record(question.name, 'NSEC', TTL.negative, { nextDomain: `\u0000.${name}`, rrtypes: types });
  return { response: reply(RCODE.NOERROR, { authorities: [...soa, ...sign([nsec])] }), ecs, ...asked };
}

/** The RRsets of a name of the zone by type, or undefined for a name that does not exist. */
function rrsetsAt(relative: string, owner: string, zone: ZoneSettings, peer: string, ecs: string | null) {
  const rrsets: Rrsets = new Map();
  if (relative === '') {
    rrsets.set('SOA', [soaRecord(zone.zone)]);
    rrsets.set('NS', [record(owner, 'NS', TTL.apex, `ns.${zone.zone}`)]);
    rrsets.set('DNSKEY', [{ ...dnskeyRecord(zone.zone, zone.key, TTL.apex), name: owner }]);
  } else if (relative === 'whoami') {
    // As o-o.myaddr.l.google.com: the asker's address, and the client subnet it sent as a second string.
    const strings = ecs === null ? [peer] : [peer, `edns0-client-subnet ${ecs}`];
    rrsets.set(
      'TXT',
      strings.map((text) => record(owner, 'TXT', TTL.whoami, [text])),
    );
  } else if (relative === 'ns' || (!relative.includes('.') && parseTokenLabel(relative) !== null)) {
    for (const [type, family] of [
      ['A', 4],
      ['AAAA', 6],
    ] as const) {
      const addresses = zone.addresses.filter((address) => isIP(address) === family);
      if (addresses.length > 0)
        rrsets.set(
          type,
          addresses.map((address) => record(owner, type, TTL.data, address)),
        );
    }
  } else {
    return undefined;
  }
  return rrsets;
}

function record(name: string, type: string, ttl: number, data: unknown): Answer {
  return { name, type, class: 'IN', ttl, data } as Answer;
}

function soaRecord(zone: string): Answer {
  return record(zone, 'SOA', TTL.negative, {
    mname: `ns.${zone}`,
    rname: `hostmaster.${zone}`,
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: TTL.negative,
  });
}

/** `192.0.2.0/24` from an ECS option's bytes (RFC 7871 §6), or null when they are malformed. */
export function ecsText(data: Buffer): string | null {
  if (data.length < 4) return null;
  const family = data.readUInt16BE(0);
  const prefix = data[2] as number;
  const size = family === 1 ? 4 : family === 2 ? 16 : 0;
  if (size === 0 || prefix > size * 8 || data.length - 4 !== Math.ceil(prefix / 8)) return null;
  const bytes = Buffer.alloc(size);
  data.copy(bytes, 0, 4);
  const address: IpAddress =
    size === 4
      ? { version: 4, value: bytes.readUInt32BE(0) }
      : { version: 6, value: BigInt(`0x${bytes.toString('hex')}`) };
  return formatCidr(cidrOf(address, prefix));
}

/** Our OPT: the same DO bit, and the client subnet echoed with its scope (the answer is the subnet's own). */
function replyOpt(opt: Opt | undefined, ecsOption: Opt['options'][number] | undefined, ecs: string | null) {
  if (opt === undefined) return undefined;
  const options = [];
  if (ecsOption !== undefined && ecs !== null) {
    const data = Buffer.from(ecsOption.data);
    data[3] = data[2] as number;
    options.push({ code: ECS_OPTION, data });
  }
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: UDP_EDNS_LIMIT,
    extendedRcode: 0,
    ednsVersion: 0,
    flags: opt.flags & dnsPacket.DNSSEC_OK,
    options,
  } as unknown as Answer;
}

type Sections = { answers?: Answer[]; authorities?: Answer[] };

/**
 * Encoded within what the asker can take: 512 bytes without EDNS, its advertised size (at most
 * 1232) with it, 64 KiB over TCP. A larger answer goes out empty with TC set, so the resolver asks
 * again over TCP, which no spoofed source address can.
 */
function encodeLimited(
  query: Packet,
  question: NonNullable<Packet['questions']>[number],
  rcode: number,
  sections: Sections,
  opt: Answer | undefined,
  tcp: boolean,
): Buffer {
  const asked = (query.flags ?? 0) & (dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED);
  const flags = dnsPacket.AUTHORITATIVE_ANSWER | asked | rcode;
  const additionals = opt === undefined ? [] : [opt];
  const full = dnsPacket.encode({
    type: 'response',
    id: query.id ?? 0,
    flags,
    questions: [question],
    answers: sections.answers ?? [],
    authorities: sections.authorities ?? [],
    additionals,
  });
  const advertised = (
    opt === undefined ? undefined : (query.additionals?.find((r) => r.type === 'OPT') as Opt | undefined)
  )?.udpPayloadSize;
  const limit = tcp
    ? 65_535
    : advertised === undefined
      ? UDP_PLAIN_LIMIT
      : Math.min(Math.max(advertised, UDP_PLAIN_LIMIT), UDP_EDNS_LIMIT);
  if (full.length <= limit) return full;
  return dnsPacket.encode({
    type: 'response',
    id: query.id ?? 0,
    flags: flags | dnsPacket.TRUNCATED_RESPONSE,
    questions: [question],
    additionals,
  });
}

/** A reply of the header only, for a packet whose question cannot be read or whose opcode is not QUERY. */
function headerOnly(query: Buffer, rcode: number): Buffer {
  const reply = Buffer.alloc(12);
  query.copy(reply, 0, 0, 2);
  const opcodeAndRd = (query.readUInt16BE(2) & 0x7900) | 0x8000 | dnsPacket.AUTHORITATIVE_ANSWER;
  reply.writeUInt16BE(opcodeAndRd | rcode, 2);
  return reply;
}
