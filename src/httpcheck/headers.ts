/**
 * The response headers the HTTP check reports: every one the server sent (the CDN and cache
 * headers, x-cache, cf-cache-status, age, server-timing, x-served-by, are what people run the check
 * to see), except the value of Set-Cookie: a session handed to this service is nobody's business,
 * so only how many cookies were set is said.
 */

/** Every value of every header, names lower-cased, in the order the server sent them. */
export type ReceivedHeaders = Record<string, string[]>;

/** A value longer than this many characters (bytes: header values are Latin-1) is cut. */
export const MAX_HEADER_VALUE_LENGTH = 4096;

/** What a cut value ends with, after its first MAX_HEADER_VALUE_LENGTH characters. */
export const cutMark = (length: number) => ` [cut: ${length} characters in all]`;

export const withheldCookies = (count: number) => `[withheld: ${count} cookie${count === 1 ? '' : 's'}]`;

/** node:http's rawHeaders (name, value, name, value...) grouped by lower-cased name; nothing dropped or merged. */
export function headersFromRaw(raw: readonly string[]): ReceivedHeaders {
  const headers: ReceivedHeaders = Object.create(null);
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase();
    const value = raw[index + 1] as string;
    const known = headers[name];
    if (known) known.push(value);
    else headers[name] = [value];
  }
  return headers;
}

/** node:http2's header object, its pseudo-headers (`:status`) left out. */
export function headersFromHttp2(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
): ReceivedHeaders {
  const received: ReceivedHeaders = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    received[name] = Array.isArray(value) ? value : [String(value)];
  }
  return received;
}

export function firstHeader(headers: ReceivedHeaders, name: string): string | null {
  return headers[name]?.[0] ?? null;
}

/** The reported form: one string per header, a repeated header joined with ", ", long values cut. */
export function reportHeaders(headers: ReceivedHeaders): Record<string, string> {
  // No prototype: a header named __proto__ is a header like any other.
  const reported: Record<string, string> = Object.create(null);
  for (const [name, values] of Object.entries(headers)) {
    if (name === 'set-cookie') {
      reported[name] = withheldCookies(values.length);
      continue;
    }
    const text = values.join(', ');
    reported[name] =
      text.length > MAX_HEADER_VALUE_LENGTH ? `${text.slice(0, MAX_HEADER_VALUE_LENGTH)}${cutMark(text.length)}` : text;
  }
  return reported;
}
