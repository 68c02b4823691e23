/**
 * The ip-location-db ASN CSV (`@ip-location-db/asn`: RouteViews + the RIRs' delegations + DB-IP
 * ASN Lite), numeric form: `first,last,asn,organisation` a line, an inclusive range per row,
 * organisation quoted CSV-style when it holds a comma or a quote.
 *
 * The package's README warns that its npm builds have data bugs. Checked on 2.3.2026061719 (see
 * docs/data.md): the rows are sorted and well-formed, every ASN has one organisation name, but
 * one IPv4 row overlaps its predecessor (AS749 214.94.0.0-215.0.255.255 and AS721 from
 * 215.0.0.0). So the parser does not trust the file: rows are sorted, malformed rows are skipped
 * and counted, and a row that starts inside the previous one is clipped to begin after it (the
 * earlier row wins), which keeps the ranges disjoint for binary search.
 */
export interface AsnRow<N extends number | bigint> {
  first: N;
  last: N;
  asn: number;
  organisation: string;
}

export interface AsnCsvParse<N extends number | bigint> {
  rows: AsnRow<N>[];
  malformed: number;
  /** Rows clipped or dropped because they overlapped the row before. */
  overlaps: number;
}

const MAX_ASN = 4_294_967_295;
const ROW = /^(\d+),(\d+),(\d+),(.*)$/;

export function parseAsnCsvIpv4(text: string): AsnCsvParse<number> {
  return parseRows(text, Number, 2 ** 32 - 1);
}

export function parseAsnCsvIpv6(text: string): AsnCsvParse<bigint> {
  return parseRows(text, BigInt, (1n << 128n) - 1n);
}

function parseRows<N extends number | bigint>(text: string, toNumber: (digits: string) => N, max: N): AsnCsvParse<N> {
  const parsed: AsnRow<N>[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const match = ROW.exec(line.trimEnd());
    const organisation = match ? unquote(match[4] as string) : null;
    if (match === null || organisation === null) {
      malformed++;
      continue;
    }
    const first = toNumber(match[1] as string);
    const last = toNumber(match[2] as string);
    const asn = Number(match[3]);
    if (first > last || last > max || asn > MAX_ASN) {
      malformed++;
      continue;
    }
    parsed.push({ first, last, asn, organisation });
  }
  parsed.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));

  const rows: AsnRow<N>[] = [];
  let overlaps = 0;
  for (const row of parsed) {
    const previous = rows.at(-1);
    if (previous !== undefined && row.first <= previous.last) {
      overlaps++;
      if (row.last <= previous.last) continue;
      row.first = (typeof previous.last === 'bigint' ? previous.last + 1n : (previous.last as number) + 1) as N;
    }
    rows.push(row);
  }
  return { rows, malformed, overlaps };
}

/** `Google LLC` or `"LLC ""SPUTNIK"""` -> the text; null for an unbalanced quote. */
function unquote(field: string): string | null {
  if (!field.startsWith('"')) return field;
  if (field.length < 2 || !field.endsWith('"')) return null;
  const inner = field.slice(1, -1);
  if (/(^|[^"])"("")*([^"]|$)/.test(inner)) return null;
  return inner.replaceAll('""', '"');
}
