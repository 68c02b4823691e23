/**
 * The response headers the HTTP check reports: what describes the content, its caching, the
 * server and its security policy. Others (Set-Cookie above all: a session handed to this service
 * is nobody's business) are left out. Values are strings; a repeated header is joined with ", ".
 */
export const REPORTED_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'transfer-encoding',
  'location',
  'server',
  'date',
  'last-modified',
  'etag',
  'cache-control',
  'expires',
  'age',
  'vary',
  'accept-ranges',
  'retry-after',
  'via',
  'alt-svc',
  'x-powered-by',
  'strict-transport-security',
  'content-security-policy',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'permissions-policy',
  'access-control-allow-origin',
  'www-authenticate',
] as const;

/** Longer values (a long Content-Security-Policy) are cut here, with "..." at the end. */
export const MAX_HEADER_VALUE_LENGTH = 4096;

export function selectHeaders(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
): Record<string, string> {
  const selected: Record<string, string> = {};
  for (const name of REPORTED_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    selected[name] = text.length > MAX_HEADER_VALUE_LENGTH ? `${text.slice(0, MAX_HEADER_VALUE_LENGTH - 3)}...` : text;
  }
  return selected;
}
