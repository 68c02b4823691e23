import { type Cidr, parseCidr } from '../../net/cidr.ts';

/**
 * Parsers for the security feeds, text in, entries out. A bad line never aborts a feed: it is
 * skipped and reported, so one corrupt line in a 40,000-line download costs one network, and the
 * updater can refuse a refresh whose malformed count looks like a broken download.
 *
 * Every format shares the line rules: `#` starts a comment (whole-line or trailing), surrounding
 * whitespace and CR (CRLF files) are ignored, blank lines are skipped.
 */
export interface MalformedLine {
  /** 1-based line number in the feed text. */
  readonly line: number;
  readonly text: string;
  readonly reason: string;
}

export interface FeedParse<T> {
  readonly entries: T[];
  readonly malformed: MalformedLine[];
}

export interface AsnListEntry {
  readonly asn: number;
  /** The publisher's note after `#`, e.g. "VOXILITY, RO"; omitted when there is none. */
  readonly comment?: string;
}

const MAX_ASN = 4_294_967_295; // 32-bit ASNs, RFC 6793

/** X4BNet lists_vpn `output/*\/ipv4.txt` and `ipv6.txt`: one CIDR (or bare address) a line. */
export function parseCidrList(text: string): FeedParse<Cidr> {
  return parseLines(text, (content) => {
    const parsed = parseCidr(content);
    return parsed.ok ? parsed.cidr : parsed.reason;
  });
}

/**
 * The Tor Project bulk exit list (check.torproject.org/torbulkexitlist): one address a line. The
 * official list is IPv4 only; mirrors add IPv6 relays, fully expanded, which are accepted. A line
 * with a prefix length is malformed: an exit relay is one address, never a network.
 */
export function parseTorExitList(text: string): FeedParse<Cidr> {
  return parseLines(text, (content) => {
    if (content.includes('/')) return 'a network, not an exit address';
    const parsed = parseCidr(content);
    return parsed.ok ? parsed.cidr : parsed.reason;
  });
}

/** X4BNet lists_vpn `input/*\/ASN.txt`: `AS123 # comment`; `AS` is optional and case-insensitive. */
export function parseAsnList(text: string): FeedParse<AsnListEntry> {
  return parseLines(text, (content, comment) => {
    const match = /^(?:AS)?(0|[1-9][0-9]*)$/i.exec(content);
    if (match === null) return 'not an AS number';
    const asn = Number(match[1]);
    if (asn > MAX_ASN) return 'AS number over 32 bits';
    return comment === '' ? { asn } : { asn, comment };
  });
}

/** `parseEntry` returns the entry, or a string saying why the line is malformed. */
function parseLines<T>(text: string, parseEntry: (content: string, comment: string) => T | string): FeedParse<T> {
  const entries: T[] = [];
  const malformed: MalformedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const hash = raw.indexOf('#');
    const content = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (content === '') continue;
    const comment = hash === -1 ? '' : raw.slice(hash + 1).trim();
    const result = parseEntry(content, comment);
    if (typeof result === 'string') malformed.push({ line: i + 1, text: raw.trim(), reason: result });
    else entries.push(result);
  }
  return { entries, malformed };
}
