import { formatIp, parseIp } from '../net/ip-address.ts';
import type { DnsRecord } from './records.ts';

/**
 * The value of one record as one line, close to `dig +short`. Choices where dig and other tools
 * differ:
 * - Names (targets, SOA names) keep the case the server sent, as dig does: DNS compares names
 *   case-insensitively, and the case shown is what the zone holds. They have no trailing dot;
 *   the root is `.` (MX `0 .` is a null MX, RFC 7505).
 * - TXT: the character-strings of one record are concatenated without separators, as SPF
 *   (RFC 7208 §3.3) and DKIM read them; dig quotes each (`"v=spf1 " "-all"`). The record's `data`
 *   keeps the strings apart for a client that needs the boundaries.
 * - AAAA: RFC 5952 form, compressed and lower case.
 *
 */
export function formatRecordValue(record: DnsRecord): string {
  return formatRdata(record, 'value');
}

/**
 * The RDATA as dig and zone files print it (RFC 1035 §5.1), as the DoH JSON APIs of Google and
 * Cloudflare show it in `data`: names with their trailing dot, each TXT character-string quoted;
 * otherwise as formatRecordValue.
 */
export function formatMasterRdata(record: DnsRecord): string {
  return formatRdata(record, 'master');
}

function formatRdata(record: DnsRecord, style: 'value' | 'master'): string {
  const name = style === 'master' ? absoluteName : (text: string) => text;
  switch (record.type) {
    case 'A':
      return record.data;
    case 'AAAA': {
      const address = parseIp(record.data);
      return address === null ? record.data : formatIp(address);
    }
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return name(record.data);
    case 'MX':
      return `${record.data.preference} ${name(record.data.exchange)}`;
    case 'TXT':
      return style === 'master' ? record.data.map(quote).join(' ') : record.data.join('');
    case 'SOA': {
      const soa = record.data;
      return `${name(soa.mname)} ${name(soa.rname)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
    }
    case 'SRV':
      return `${record.data.priority} ${record.data.weight} ${record.data.port} ${name(record.data.target)}`;
    case 'CAA':
      return `${record.data.flags} ${record.data.tag} ${quote(record.data.value)}`;
    case 'DS':
      return `${record.data.keyTag} ${record.data.algorithm} ${record.data.digestType} ${record.data.digestHex}`;
    case 'DNSKEY':
      // 3 is the protocol field, fixed by RFC 4034 §2.1.2; dns-packet does not return it.
      return `${record.data.flags} 3 ${record.data.algorithm} ${record.data.keyBase64}`;
    case 'TLSA':
      return `${record.data.usage} ${record.data.selector} ${record.data.matchingType} ${record.data.certificateHex}`;
    case 'SSHFP':
      return `${record.data.algorithm} ${record.data.hash} ${record.data.fingerprintHex}`;
    case 'HINFO':
      return `${quote(record.data.cpu)} ${quote(record.data.os)}`;
    case 'NAPTR': {
      const naptr = record.data;
      const texts = [naptr.flags, naptr.services, naptr.regexp].map(quote).join(' ');
      return `${naptr.order} ${naptr.preference} ${texts} ${naptr.replacement ? name(naptr.replacement) : '.'}`;
    }
    case 'RRSIG': {
      const sig = record.data;
      // RFC 4034 §3.2: the times as YYYYMMDDHHmmSS in UTC, as dig prints them.
      const fields = [sig.typeCovered, sig.algorithm, sig.labels, sig.originalTtl];
      const times = [signatureTime(sig.expiration), signatureTime(sig.inception)];
      return [...fields, ...times, sig.keyTag, name(sig.signersName), sig.signatureBase64].join(' ');
    }
    case 'NSEC':
      return [name(record.data.nextDomain), ...record.data.types].join(' ');
    case 'NSEC3': {
      // RFC 5155 §3.3: the salt in hex, `-` when empty.
      const nsec3 = record.data;
      const fields = [nsec3.algorithm, nsec3.flags, nsec3.iterations, nsec3.saltHex || '-', nsec3.nextHashed];
      return [...fields, ...nsec3.types].join(' ');
    }
    case 'HTTPS':
    case 'SVCB':
      return [record.data.priority, name(record.data.target), ...record.data.params].join(' ');
    default:
      return formatUnknown(record.data);
  }
}

function formatUnknown(data: unknown): string {
  const rdataHex = (data as { rdataHex?: string | null }).rdataHex;
  if (typeof rdataHex !== 'string') return '';
  // RFC 3597 §5: the generic presentation of RDATA of an unknown type.
  return `\\# ${rdataHex.length / 2}${rdataHex === '' ? '' : ` ${rdataHex}`}`;
}

/** A name as zone files write it: with the trailing dot (the root is `.`). */
function absoluteName(text: string): string {
  return text.endsWith('.') ? text : `${text}.`;
}

function signatureTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function quote(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}
