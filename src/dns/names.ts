import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { reverseName } from '../net/ip-address.ts';

export type NameResult = { ok: true; name: string } | { ok: false; reason: string };

const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
// Underscores are not allowed in host names but are in service names (_sip._tcp, _dmarc,
// _domainkey), which users query for SRV and TXT records.
const LABEL = /^[a-z0-9_-]+$/;
/** Any numeric character: decimal digits of every script, circled and superscript digits, fractions. */
const NUMERIC = /^\p{N}$/u;

/**
 * Validates a name given by a user and returns its query form: IDN converted to punycode, lower
 * case, without the trailing dot. The root is `.`. The reason is written for a 400 message.
 */
export function normaliseQueryName(input: string): NameResult {
  if (input === '.') return { ok: true, name: '.' };
  if (input === '') return { ok: false, reason: 'host name is empty' };
  if (/\s/.test(input)) return { ok: false, reason: 'host name contains white space' };
  const withoutDot = input.endsWith('.') ? input.slice(0, -1) : input;
  // domainToASCII parses a URL host: it would drop "/path" and decode "%41", so ASCII beyond
  // the name alphabet is refused before it sees the input (non-ASCII is left for IDNA).
  const stray = [...withoutDot].find((char) => char < '\u0080' && !/[a-z0-9._-]/i.test(char));
  if (stray !== undefined) return { ok: false, reason: `host name has the character ${JSON.stringify(stray)}` };
  // IDNA maps fullwidth (１), circled (①), mathematical (𝟏) and superscript digits to 0-9, so
  // "１２７.０.０.２" became the address 127.0.0.2: a name in one script read as an address in another.
  // Digits are written 0-9 in a host; any other numeric character is refused before IDNA sees it.
  const digit = [...withoutDot].find((char) => char >= '\u0080' && NUMERIC.test(char));
  if (digit !== undefined) {
    const code = `U+${digit.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`;
    return {
      ok: false,
      reason: `host name has the non-ASCII numeric character "${digit}" (${code}); write digits as 0-9`,
    };
  }
  // A URL host that ends in a number is an IPv4 address to domainToASCII, in any of the legacy
  // forms inet_aton accepts: "127.1", "010.1.1.1" (octal), "0x7f.1", "2130706433". Only the
  // dotted quad is taken as an address (callers then ask for PTR or refuse it); the other forms
  // are refused here rather than silently turned into an address the user did not write.
  if (endsInNumber(withoutDot) && isIP(withoutDot) !== 4) {
    return { ok: false, reason: 'host name ends in a number, and it is not an IPv4 address as a.b.c.d' };
  }
  // domainToASCII rejects what IDNA cannot map (and returns ''), and keeps underscores.
  const ascii = domainToASCII(withoutDot).toLowerCase();
  if (ascii === '') return { ok: false, reason: 'host name is not a valid domain name' };
  if (ascii.length > MAX_NAME_LENGTH) return { ok: false, reason: `host name is longer than ${MAX_NAME_LENGTH}` };
  for (const label of ascii.split('.')) {
    if (label === '') return { ok: false, reason: 'host name has an empty label' };
    if (label.length > MAX_LABEL_LENGTH) {
      return { ok: false, reason: `label "${label}" is longer than ${MAX_LABEL_LENGTH}` };
    }
    if (!LABEL.test(label)) {
      return { ok: false, reason: `label "${label}" has characters other than letters, digits, - and _` };
    }
  }
  return { ok: true, name: ascii };
}

/** True when the last label is a number (`127.1`, `0x7f`): an IPv4 address in a legacy form to URL parsers. */
export function endsInNumber(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

/**
 * The name to query PTR for: an IPv4 or IPv6 address becomes its `in-addr.arpa` or nibble
 * `ip6.arpa` name (an IPv4-mapped IPv6 address is reversed as its IPv4 address, where its PTR
 * record lives); a reverse name is taken as it is.
 */
export function toPtrName(input: string): NameResult {
  if (isIP(input) !== 0) {
    const name = reverseName(input);
    if (name !== null) return { ok: true, name };
  }
  const name = normaliseQueryName(input);
  if (!name.ok) return { ok: false, reason: 'not an IP address or a reverse name' };
  if (!name.name.endsWith('.in-addr.arpa') && !name.name.endsWith('.ip6.arpa')) {
    return { ok: false, reason: 'not an IP address or a reverse (in-addr.arpa / ip6.arpa) name' };
  }
  return name;
}
