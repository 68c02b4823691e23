/**
 * ifconfig.co's reading of a User-Agent (mpolden/echoip's useragent.Parse): the product, then a
 * version if the part after the first `/` starts with a digit, the rest as the comment.
 */
export function parseUserAgent(raw: string) {
  const slash = raw.indexOf('/');
  if (slash < 0) {
    const space = raw.indexOf(' ');
    return space < 0
      ? { product: raw, version: '', comment: '', raw }
      : { product: raw.slice(0, space), version: '', comment: raw.slice(space + 1), raw };
  }
  const product = raw.slice(0, slash);
  const rest = raw.slice(slash + 1);
  const first = rest.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return { product, version: '', comment: rest, raw };
  const space = rest.indexOf(' ');
  return space < 0
    ? { product, version: rest, comment: '', raw }
    : { product, version: rest.slice(0, space), comment: rest.slice(space + 1), raw };
}

/**
 * parseUserAgent's product without the rest: find-my-way derives the `answers` constraint for
 * every request of the service, not only for `/`, so this stays one search and one slice.
 */
function productOf(raw: string): string {
  const slash = raw.indexOf('/');
  if (slash >= 0) return raw.slice(0, slash);
  const space = raw.indexOf(' ');
  return space < 0 ? raw : raw.slice(0, space);
}

/** The clients ifconfig.co answers with the bare address at `/` whatever their Accept says. */
const CLI_PRODUCTS = new Set([
  'curl',
  'HTTPie',
  'httpie-go',
  'Wget',
  'fetch libfetch',
  'Go',
  'Go-http-client',
  'ddclient',
  'Mikrotik',
  'xh',
]);

/**
 * What `GET /` answers, in ifconfig.co's order: JSON to `Accept: application/json` exactly, the
 * address as text to the command-line clients it knows (HTTPie's default Accept lists JSON too),
 * the home page to a browser (Accept lists text/html). Beyond ifconfig.co, which sends its HTML
 * page to everything else: JSON to another client whose Accept lists application/json, and text to
 * the rest (no User-Agent, `Accept: *\/*`), so a script reads one line, not a page.
 */
export function rootAnswerKind(accept: string | undefined, userAgent: string | undefined): 'json' | 'text' | 'html' {
  const types = accept?.toLowerCase() ?? '';
  if (types === 'application/json') return 'json';
  if (userAgent !== undefined && CLI_PRODUCTS.has(productOf(userAgent))) return 'text';
  if (types.includes('text/html')) return 'html';
  return types.includes('application/json') ? 'json' : 'text';
}
