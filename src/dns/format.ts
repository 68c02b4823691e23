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
 */
export function formatRecordValue(record: DnsRecord): string {
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
      return record.data;
    case 'MX':
      return `${record.data.preference} ${record.data.exchange}`;
    case 'TXT':
      return record.data.join('');
    case 'SOA': {
      const soa = record.data;
      return `${soa.mname} ${soa.rname} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
    }
    case 'SRV':
      return `${record.data.priority} ${record.data.weight} ${record.data.port} ${record.data.target}`;
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
      return `${naptr.order} ${naptr.preference} ${texts} ${naptr.replacement || '.'}`;
    }
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

function quote(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}
