import type { Answer, RecordType } from 'dns-packet';
import { decodeSvcbRdata, type SvcbData } from './svcb.ts';
import { recordTypeName } from './types.ts';

/**
 * The record types a user may ask for. The resolver can carry others (they come back as
 * `{ rdata }`), but these are the ones whose data is decoded and formatted.
 */
export const QUERY_RECORD_TYPES = [
  'A',
  'AAAA',
  'CAA',
  'CNAME',
  'DNSKEY',
  'DS',
  'HINFO',
  'HTTPS',
  'MX',
  'NAPTR',
  'NS',
  'PTR',
  'SOA',
  'SRV',
  'SSHFP',
  'SVCB',
  'TLSA',
  'TXT',
] as const;
export type QueryRecordType = (typeof QUERY_RECORD_TYPES)[number];

// Record data is plain JSON (no Buffers) so an answer can be cached in Redis and sent as it is.
export type RecordData =
  | { type: 'A' | 'AAAA' | 'CNAME' | 'DNAME' | 'NS' | 'PTR'; data: string }
  | { type: 'MX'; data: { preference: number; exchange: string } }
  /** One string per character-string, decoded as UTF-8, in the order sent. */
  | { type: 'TXT'; data: string[] }
  | {
      type: 'SOA';
      data: {
        mname: string;
        rname: string;
        serial: number;
        refresh: number;
        retry: number;
        expire: number;
        minimum: number;
      };
    }
  | { type: 'SRV'; data: { priority: number; weight: number; port: number; target: string } }
  | { type: 'CAA'; data: { flags: number; tag: string; value: string } }
  | { type: 'DS'; data: { keyTag: number; algorithm: number; digestType: number; digestHex: string } }
  | { type: 'DNSKEY'; data: { flags: number; algorithm: number; keyBase64: string } }
  | { type: 'TLSA'; data: { usage: number; selector: number; matchingType: number; certificateHex: string } }
  | { type: 'SSHFP'; data: { algorithm: number; hash: number; fingerprintHex: string } }
  | { type: 'HINFO'; data: { cpu: string; os: string } }
  | {
      type: 'NAPTR';
      data: { order: number; preference: number; flags: string; services: string; regexp: string; replacement: string };
    }
  | {
      type: 'RRSIG';
      data: {
        /** The type the signature covers, as a mnemonic (`TYPE<n>` when it has none). */
        typeCovered: string;
        algorithm: number;
        labels: number;
        originalTtl: number;
        /** Seconds since 1970 (RFC 4034 §3.1.5), as sent. */
        expiration: number;
        inception: number;
        keyTag: number;
        signersName: string;
        signatureBase64: string;
      };
    }
  | { type: 'NSEC'; data: { nextDomain: string; types: string[] } }
  | {
      type: 'NSEC3';
      data: {
        algorithm: number;
        flags: number;
        iterations: number;
        saltHex: string;
        /** The next hashed owner name in base32hex (RFC 4648 §7), as zone files write it. */
        nextHashed: string;
        types: string[];
      };
    }
  | { type: 'HTTPS' | 'SVCB'; data: SvcbData }
  /** Any other type: the raw RDATA in hex (RFC 3597), or `null` when the decoder gave no bytes. */
  | { type: OtherRecordType; data: { rdataHex: string | null } };

type ModelledRecordType = QueryRecordType | 'DNAME' | 'RRSIG' | 'NSEC' | 'NSEC3';
/** dns-packet names types it does not know `UNKNOWN_<number>`. */
export type OtherRecordType = Exclude<RecordType, ModelledRecordType> | `UNKNOWN_${number}`;

/**
 * One resource record. Names keep the case the server sent (as dig shows them) and have no
 * trailing dot; the root is `.`.
 */
export type DnsRecord = RecordData & { name: string; ttl: number; class: string };

/**
 * The order MX records are shown in, /dns, its page and /mail alike: the order a sender tries them
 * (lowest preference first, RFC 5321 section 5.1), then by name, case aside, so equal preferences
 * do not shuffle with the server's round-robin.
 */
export function compareMx(a: { preference: number; exchange: string }, b: { preference: number; exchange: string }) {
  if (a.preference !== b.preference) return a.preference - b.preference;
  const x = a.exchange.toLowerCase();
  const y = b.exchange.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The records in the order shown: MX records sorted among themselves (compareMx), every other record where it was. */
export function inShownOrder<T extends RecordData>(records: readonly T[]): T[] {
  const mx = records.filter((record) => record.type === 'MX') as (T & { type: 'MX' })[];
  if (mx.length < 2) return [...records];
  const sorted = mx.sort((a, b) => compareMx(a.data, b.data));
  let next = 0;
  return records.map((record) => (record.type === 'MX' ? (sorted[next++] as T) : record));
}

// RFC 2181 §8: a TTL with the top bit set is to be read as zero.
const MAX_TTL = 0x7fffffff;

/** Converts a record decoded by dns-packet. Returns undefined for the EDNS OPT pseudo-record. */
export function toDnsRecord(answer: Answer): DnsRecord | undefined {
  if (answer.type === 'OPT') return undefined;
  const ttl = (answer.ttl ?? 0) > MAX_TTL ? 0 : (answer.ttl ?? 0);
  const base = { name: answer.name, ttl, class: answer.class ?? 'IN' };
  return { ...base, ...toRecordData(answer) } as DnsRecord;
}

function toRecordData(answer: Exclude<Answer, { type: 'OPT' }>): RecordData {
  switch (answer.type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return { type: answer.type, data: answer.data };
    case 'MX':
      return { type: 'MX', data: { preference: answer.data.preference ?? 0, exchange: answer.data.exchange } };
    case 'TXT': {
      const strings = Array.isArray(answer.data) ? answer.data : [answer.data];
      return { type: 'TXT', data: strings.map((part) => (typeof part === 'string' ? part : txtText(part))) };
    }
    case 'SOA': {
      const soa = answer.data;
      return {
        type: 'SOA',
        data: {
          mname: soa.mname,
          rname: soa.rname,
          serial: soa.serial ?? 0,
          refresh: soa.refresh ?? 0,
          retry: soa.retry ?? 0,
          expire: soa.expire ?? 0,
          minimum: soa.minimum ?? 0,
        },
      };
    }
    case 'SRV': {
      const srv = answer.data;
      return {
        type: 'SRV',
        data: { priority: srv.priority ?? 0, weight: srv.weight ?? 0, port: srv.port, target: srv.target },
      };
    }
    case 'CAA':
      return { type: 'CAA', data: { flags: answer.data.flags ?? 0, tag: answer.data.tag, value: answer.data.value } };
    case 'DS': {
      const ds = answer.data;
      return {
        type: 'DS',
        data: { keyTag: ds.keyTag, algorithm: ds.algorithm, digestType: ds.digestType, digestHex: hex(ds.digest) },
      };
    }
    case 'DNSKEY': {
      const key = answer.data;
      return {
        type: 'DNSKEY',
        data: { flags: key.flags, algorithm: key.algorithm, keyBase64: key.key.toString('base64') },
      };
    }
    case 'TLSA': {
      const tlsa = answer.data;
      return {
        type: 'TLSA',
        data: {
          usage: tlsa.usage,
          selector: tlsa.selector,
          matchingType: tlsa.matchingType,
          certificateHex: hex(tlsa.certificate),
        },
      };
    }
    case 'SSHFP': {
      const sshfp = answer.data;
      // dns-packet already gives the fingerprint as hex.
      return {
        type: 'SSHFP',
        data: { algorithm: sshfp.algorithm, hash: sshfp.hash, fingerprintHex: sshfp.fingerprint.toLowerCase() },
      };
    }
    case 'HINFO':
      return { type: 'HINFO', data: { cpu: answer.data.cpu, os: answer.data.os } };
    case 'NAPTR':
      return { type: 'NAPTR', data: { ...answer.data } };
    case 'RRSIG': {
      const sig = answer.data;
      return {
        type: 'RRSIG',
        data: {
          typeCovered: mnemonic(sig.typeCovered),
          algorithm: sig.algorithm,
          labels: sig.labels,
          originalTtl: sig.originalTTL,
          expiration: sig.expiration,
          inception: sig.inception,
          keyTag: sig.keyTag,
          signersName: sig.signersName,
          signatureBase64: sig.signature.toString('base64'),
        },
      };
    }
    case 'NSEC':
      return { type: 'NSEC', data: { nextDomain: answer.data.nextDomain, types: answer.data.rrtypes.map(mnemonic) } };
    case 'NSEC3': {
      const nsec3 = answer.data;
      return {
        type: 'NSEC3',
        data: {
          algorithm: nsec3.algorithm,
          flags: nsec3.flags,
          iterations: nsec3.iterations,
          saltHex: hex(nsec3.salt),
          nextHashed: base32hex(nsec3.nextDomain),
          types: nsec3.rrtypes.map(mnemonic),
        },
      };
    }
    default: {
      const svcbType = recordTypeName(answer.type);
      const raw: unknown = (answer as { data: unknown }).data;
      if ((svcbType === 'HTTPS' || svcbType === 'SVCB') && Buffer.isBuffer(raw)) {
        const svcb = decodeSvcbRdata(raw);
        // RDATA that does not parse is shown as it came, in RFC 3597's generic form.
        if (svcb !== undefined) return { type: svcbType, data: svcb };
      }
      // Types dns-packet does not decode arrive as the raw RDATA Buffer; decoded ones we do not
      // model (RRSIG, NSEC, ...) have no bytes left to show.
      return { type: answer.type as OtherRecordType, data: { rdataHex: Buffer.isBuffer(raw) ? hex(raw) : null } };
    }
  }
}

/** A type name from dns-packet as a mnemonic: the names it lacks put back, `TYPE<n>` (RFC 3597) for the rest. */
function mnemonic(packetName: string): string {
  return recordTypeName(packetName).replace(/^UNKNOWN_/, 'TYPE');
}

const BASE32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/** Base32 with the extended hex alphabet, unpadded (RFC 5155 §3.3): NSEC3 hashed owner names. */
function base32hex(bytes: Buffer): string {
  let text = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      text += BASE32HEX[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) text += BASE32HEX[(buffer << (5 - bits)) & 31];
  return text;
}

function hex(bytes: Buffer): string {
  return bytes.toString('hex').toUpperCase();
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A TXT character-string as text: as sent when it is UTF-8 (every SPF, DKIM or verification record);
 * otherwise in DNS presentation form (RFC 1035 §5.1, as dig shows it), printable ASCII as it is, a
 * backslash as `\\`, every other byte as `\DDD` in decimal. Decoding such bytes as UTF-8 would
 * replace them with U+FFFD and lose what the server sent.
 */
export function txtText(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    let text = '';
    for (const byte of bytes) {
      if (byte === 0x5c) text += '\\\\';
      else if (byte >= 0x20 && byte < 0x7f) text += String.fromCharCode(byte);
      else text += `\\${String(byte).padStart(3, '0')}`;
    }
    return text;
  }
}
