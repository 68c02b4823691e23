/**
 * A WHOIS reply read as an ordered list of key/value entries, whatever the registry's layout:
 * 'Key: value' lines, JPRS '[Key]  value' lines, and indented blocks under a header
 * ('Name servers:' then one server a line, or Nominet's 'Relevant dates:' with 'Registered on: ...').
 * Keys are lower case with spacing and trailing dots collapsed, so look-ups can be plain strings.
 */
export interface WhoisEntry {
  key: string;
  value: string;
  /** Zero-based line number, so callers can tell which record of a multi-record reply an entry is in. */
  line: number;
}

interface Section {
  key: string;
  indent: number;
  /** Whether any line has been read under the header yet. */
  filled: boolean;
  /** Opened by a key that has its own value: only strictly more-indented lines continue it. */
  strict: boolean;
}

const COMMENT = /^\s*(%|#|;|>>>|\[ )/;
// TRABIS (.tr) marks keys with stars: '** Domain Name: google.com.tr'.
const STAR_MARK = /^(\s*)\*+\s*(?=[a-z])/i;
// SWITCH (.ch/.li) separates key and value with a tab and no colon: 'Domain name\tgoogle.ch'.
const TABBED = /^(\s*)([a-z][^\t:.]{0,40}?)\t+(\S.*)$/i;
// JPRS: 'a. [Domain Name]   GOOGLE.CO.JP' and '[Registered Date]  2001/03/22'.
// MYNIC: 'c [Record Created]   13-MAY-2009'.
const BRACKETED = /^\s*(?:[a-z]\.?\s*)?\[([^\]]{1,60})\]\s*(.*)$/i;
// No separator at all: 'Record created on 2005-04-15' (.mo, .tw), 'Registered on 30th April 2003' (.gg).
const PHRASE_ON = /^\s*([a-z][a-z ]{2,40}? on)\s+(\S.*)$/i;
// One-word key, then a run of spaces: 'Valid-date          2011-07-23' (SK-NIC).
const SPACED = /^\s*([a-z][a-z_-]{1,30})\s{2,}(\S.*)$/i;
// A rule under a header ('Domain name servers:' then '-----') is decoration, not the end of the block.
const RULE = /^\s*[-=_*]{3,}\s*$/;
const KEYED = /^(\s*)([a-z\u00c0-\uffff][^:]{0,59}?)[\s.]*:(.*)$/i;

/**
 * Bilingual keys keep their English half and drop format hints, so 'Data de registo / Creation Date
 * (dd/mm/yyyy)' (.pt) is looked up as 'creation date'.
 */
export function normaliseKey(key: string): string {
  return key
    .replace(/^.*\s\/\s/, '')
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/[\s_]+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim()
    .toLowerCase();
}

function indentOf(line: string): number {
  return /^\s*/.exec(line)?.[0].length ?? 0;
}

/**
 * 'key: value', unless the colon belongs to the value: a URL, an IPv6 address or a time
 * ('ns1.example.net 2001:db8::1', 'lookup made at 09:42:27').
 */
function splitKeyed(line: string): { key: string; value: string } | null {
  const match = KEYED.exec(line);
  if (!match) return null;
  const [, , key = '', rest = ''] = match;
  if (rest.startsWith('//')) return null;
  const lastWord = /(\S+)\s*$/.exec(key)?.[1] ?? '';
  if (/^[0-9a-f]{1,4}$/i.test(lastWord) && /\d/.test(lastWord) && /^[0-9a-f:]/i.test(rest)) return null;
  // A YAML type tag ('registrar: !Registrar') opens a block like an empty value does.
  const value = rest.trim().replace(/^!\w+$/, '');
  return { key: normaliseKey(key), value };
}

/**
 * A short line with no colon that opens a block: '.it'-style 'Nameservers' above indented lines, or
 * SWITCH's 'Name servers' at the top of a paragraph above unindented ones.
 */
function isBareHeader(line: string, previous: string | undefined, next: string | undefined): boolean {
  const trimmed = line.trim();
  if (trimmed.length > 40 || trimmed.includes(':') || /[.,;]$/.test(trimmed) || !/^[a-z]/i.test(trimmed)) return false;
  if (next === undefined || next.trim() === '') return false;
  return indentOf(next) > indentOf(line) || previous === undefined || previous.trim() === '';
}

function splitUnmarked(line: string): { key: string; value: string } | null {
  const tabbed = TABBED.exec(line);
  if (tabbed) return { key: normaliseKey(tabbed[2] ?? ''), value: (tabbed[3] ?? '').trim() };
  const phrase = PHRASE_ON.exec(line) ?? SPACED.exec(line);
  return phrase ? { key: normaliseKey(phrase[1] ?? ''), value: (phrase[2] ?? '').trim() } : null;
}

export function readWhoisEntries(raw: string): WhoisEntry[] {
  const lines = raw.replace(/\r\n?/g, '\n').split('\n');
  const entries: WhoisEntry[] = [];
  let section: Section | null = null;
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.replace(STAR_MARK, '$1');
    if (line.trim() === '') {
      // One blank line may separate a header from its list ('Name servers in the listed order:').
      if (section && !section.filled && lines[index - 1]?.trim() !== '') continue;
      section = null;
      continue;
    }
    if (section && RULE.test(line)) continue;
    if (COMMENT.test(line)) continue;
    const indent = indentOf(line);
    // A header with an empty value owns the lines below it that are indented further or, in layouts
    // without indentation ('Domain name:' then 'YAZEJI.TK'), at the same depth.
    if (section && (indent < section.indent || (section.strict && indent === section.indent))) section = null;

    const bracketed = BRACKETED.exec(line);
    if (bracketed) {
      const [, key = '', value = ''] = bracketed;
      entries.push({ key: normaliseKey(key), value: value.trim(), line: index });
      continue;
    }
    const keyed = splitKeyed(line) ?? splitUnmarked(line);
    if (keyed) {
      if (section) {
        section.filled = true;
        entries.push({ key: `${section.key} ${keyed.key}`, value: keyed.value, line: index });
      }
      // A keyed line also owns more-indented lines below it ('nameservers: ns1...' then '   ns2...').
      const opensBlock = keyed.value === '' || !section;
      if (keyed.value !== '') entries.push({ key: keyed.key, value: keyed.value, line: index });
      if (opensBlock) section = { key: keyed.key, indent, filled: false, strict: keyed.value !== '' };
      continue;
    }
    if (section) {
      section.filled = true;
      entries.push({ key: section.key, value: line.trim(), line: index });
    } else if (isBareHeader(line, lines[index - 1], lines[index + 1])) {
      section = { key: normaliseKey(line), indent, filled: false, strict: false };
    }
  }
  return entries;
}
