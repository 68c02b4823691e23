import { formatIp, parseIp } from '../net/ip-address.ts';

/**
 * SVCB and HTTPS records (RFC 9460), which dns-packet does not decode: the RDATA as the mode, the
 * target and the SvcParams, each param already in its presentation form (`alpn="h2,h3"`,
 * `port=8443`), in the order sent (which RFC 9460 §2.2 requires to be increasing key order).
 */
export type SvcbData = {
  /** 0 is AliasMode; any other value ServiceMode, lower first. */
  priority: number;
  /** `.` for the root: in ServiceMode, "the owner name itself". */
  target: string;
  params: string[];
};

const KEY_NAMES = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath'];

/** The presentation name of a SvcParamKey: its registered name, or `key<n>` (RFC 9460 §2.1). */
export function svcParamKeyName(key: number): string {
  return KEY_NAMES[key] ?? `key${key}`;
}

/** Decodes SVCB/HTTPS RDATA; undefined when it is malformed (then shown as generic RDATA). */
export function decodeSvcbRdata(rdata: Buffer): SvcbData | undefined {
  if (rdata.length < 3) return undefined;
  const priority = rdata.readUInt16BE(0);
  const target = decodeUncompressedName(rdata, 2);
  if (target === undefined) return undefined;
  const params: string[] = [];
  let offset = target.end;
  while (offset < rdata.length) {
    if (offset + 4 > rdata.length) return undefined;
    const key = rdata.readUInt16BE(offset);
    const length = rdata.readUInt16BE(offset + 2);
    const value = rdata.subarray(offset + 4, offset + 4 + length);
    if (value.length !== length) return undefined;
    const param = formatParam(key, value);
    if (param === undefined) return undefined;
    params.push(param);
    offset += 4 + length;
  }
  return { priority, target: target.name, params };
}

function formatParam(key: number, value: Buffer): string | undefined {
  const name = svcParamKeyName(key);
  switch (key) {
    case 0: {
      if (value.length === 0 || value.length % 2 !== 0) return undefined;
      const keys = [];
      for (let at = 0; at < value.length; at += 2) keys.push(svcParamKeyName(value.readUInt16BE(at)));
      return `${name}=${keys.join(',')}`;
    }
    case 1: {
      const ids = characterStrings(value);
      if (ids === undefined || ids.length === 0) return undefined;
      // RFC 9460 Appendix A.1: a comma inside an ALPN id is escaped, and so is the escape itself.
      return `${name}="${ids.map((id) => escapeText(id, true)).join(',')}"`;
    }
    case 2:
      return value.length === 0 ? name : undefined;
    case 3:
      return value.length === 2 ? `${name}=${value.readUInt16BE(0)}` : undefined;
    case 4:
    case 6: {
      const size = key === 4 ? 4 : 16;
      if (value.length === 0 || value.length % size !== 0) return undefined;
      const addresses = [];
      for (let at = 0; at < value.length; at += size) addresses.push(formatAddress(value.subarray(at, at + size)));
      return `${name}=${addresses.join(',')}`;
    }
    case 5:
      return `${name}=${value.toString('base64')}`;
    default:
      return value.length === 0 ? name : `${name}="${escapeText(value, false)}"`;
  }
}

function formatAddress(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups = [];
  for (let at = 0; at < 16; at += 2) groups.push(bytes.readUInt16BE(at).toString(16));
  const text = groups.join(':');
  const parsed = parseIp(text);
  return parsed === null ? text : formatIp(parsed);
}

function characterStrings(value: Buffer): Buffer[] | undefined {
  const strings: Buffer[] = [];
  let offset = 0;
  while (offset < value.length) {
    const length = value[offset] ?? 0;
    const text = value.subarray(offset + 1, offset + 1 + length);
    if (text.length !== length || length === 0) return undefined;
    strings.push(text);
    offset += 1 + length;
  }
  return strings;
}

/** A byte string inside double quotes: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`. */
function escapeText(bytes: Buffer, inList: boolean): string {
  let text = '';
  for (const byte of bytes) {
    if (byte === 0x22) text += '\\"';
    else if (byte === 0x5c) text += inList ? '\\\\\\\\' : '\\\\';
    else if (byte === 0x2c && inList) text += '\\\\,';
    else if (byte >= 0x20 && byte < 0x7f) text += String.fromCharCode(byte);
    else text += `\\${String(byte).padStart(3, '0')}`;
  }
  return text;
}

/** A name in wire form without compression pointers (RFC 9460 §2.2 forbids them in TargetName). */
function decodeUncompressedName(bytes: Buffer, start: number): { name: string; end: number } | undefined {
  const labels: string[] = [];
  let offset = start;
  for (;;) {
    const length = bytes[offset];
    if (length === undefined || length > 63) return undefined;
    offset += 1;
    if (length === 0) break;
    const label = bytes.subarray(offset, offset + length);
    if (label.length !== length) return undefined;
    labels.push(escapeLabel(label));
    offset += length;
  }
  return { name: labels.length === 0 ? '.' : labels.join('.'), end: offset };
}

function escapeLabel(label: Buffer): string {
  let text = '';
  for (const byte of label) {
    if (byte === 0x2e || byte === 0x5c || byte === 0x22) text += `\\${String.fromCharCode(byte)}`;
    else if (byte > 0x20 && byte < 0x7f) text += String.fromCharCode(byte);
    else text += `\\${String(byte).padStart(3, '0')}`;
  }
  return text;
}
