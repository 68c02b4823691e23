// Registries write dates in dozens of layouts. Every branch below reads the calendar date exactly as
// written and never builds a Date object: a Date would invite a time-zone conversion that moves the
// day (a '2004-08-31 00:00:00+09:00' creation must stay 2004-08-31).

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const MONTH_NAME = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';

/** 0, which no date accepts, for a word that is not a month. */
function monthNumber(name: string): number {
  return MONTHS[name.slice(0, 3).toLowerCase()] ?? 0;
}

/** Two-digit years pivot at 50: WHOIS dates start in the 1980s. */
function fullYear(year: string): number {
  const value = Number(year);
  if (year.length === 4) return value;
  return value < 50 ? 2000 + value : 1900 + value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function formatDate(year: number, month: number, day: number): string | null {
  if (year < 1980 || year > 9999) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** How a reply orders numeric dates whose year comes last: '31/08/2004' or '08/31/2004'. */
export type NumericDateOrder = 'day-first' | 'month-first';

const YEAR_LAST = /(?<!\d)(\d{1,2})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{4}|\d{2})(?![\d])/;

/**
 * Day-first unless one of the reply's own dates can only be month-first ('11/29/2016' in a Dot TK
 * reply makes its '01/03/2022' the 3rd of January). Day-first is the default because most
 * registries outside the US write it.
 */
export function numericDateOrder(values: string[]): NumericDateOrder {
  for (const value of values) {
    const match = YEAR_LAST.exec(value);
    if (match && Number(match[2]) > 12 && Number(match[1]) <= 12) return 'month-first';
  }
  return 'day-first';
}

function fromNumericDayMonth(a: number, b: number, year: string, order: NumericDateOrder): string | null {
  if (order === 'month-first' || (b > 12 && a <= 12)) return formatDate(fullYear(year), a, b);
  return formatDate(fullYear(year), b, a);
}

type DateReader = (match: RegExpExecArray, order: NumericDateOrder) => string | null;

// Order matters: the year-first layouts are unambiguous and most common, so they come first.
const LAYOUTS: ReadonlyArray<readonly [RegExp, DateReader]> = [
  // 2004-08-31, 2004/08/31, 2004.08.31, '2004. 08. 31.', 2004-08-31T00:00:00Z
  [
    /(?<!\d)(\d{4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})(?!\d)/,
    ([, year, month, day]) => formatDate(Number(year), Number(month), Number(day)),
  ],
  // 20040831, '20040831 12:00:00'
  [
    /(?<!\d)(\d{4})(\d{2})(\d{2})(?![\d])/,
    ([, year, month, day]) => formatDate(Number(year), Number(month), Number(day)),
  ],
  // 31-Aug-2004, 31 Aug 2004, 31-August-2004, '31st August 2004'
  [
    new RegExp(`(?<!\\d)(\\d{1,2})(?:st|nd|rd|th)?[-\\s/.]+${MONTH_NAME}[-\\s/.,]+(\\d{4}|\\d{2})(?!\\d)`, 'i'),
    ([, day, month = '', year = '']) => formatDate(fullYear(year), monthNumber(month), Number(day)),
  ],
  // 2004-Aug-31
  [
    new RegExp(`(?<!\\d)(\\d{4})[-\\s/.]+${MONTH_NAME}[-\\s/.]+(\\d{1,2})(?!\\d)`, 'i'),
    ([, year, month = '', day]) => formatDate(Number(year), monthNumber(month), Number(day)),
  ],
  // Aug 31 2004, 'August 31, 2004', 'Tue Aug 31 00:00:00 GMT 2004'
  [
    new RegExp(
      `\\b${MONTH_NAME}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(?:\\d{1,2}:\\d{2}(?::\\d{2})?\\s+(?:[a-z]{2,5}\\s+)?)?(\\d{4})(?!\\d)`,
      'i',
    ),
    ([, month = '', day, year]) => formatDate(Number(year), monthNumber(month), Number(day)),
  ],
  // 31.08.2004, 31/08/2004, 31-08-2004, 08/31/2004, 31.08.04
  [YEAR_LAST, ([, first, second, year = ''], order) => fromNumericDayMonth(Number(first), Number(second), year, order)],
];

/**
 * The calendar date written in a WHOIS value, as 'YYYY-MM-DD', or null when the value holds no
 * complete date. Partial dates such as 'before Aug-1996' give null: the registry does not say the day.
 */
export function normaliseWhoisDate(text: string, order: NumericDateOrder = 'day-first'): string | null {
  const value = text.trim();
  if (value === '' || /^before\b/i.test(value)) return null;
  for (const [pattern, read] of LAYOUTS) {
    const match = pattern.exec(value);
    if (match) return read(match, order);
  }
  return null;
}
