import type { FastifyReply } from 'fastify';
import type { AssetStore } from './assets.ts';
import { escapeHtml as e } from './html.ts';

export const NAVIGATION = [
  { key: 'home', href: '/', label: 'My IP' },
  { key: 'dns', href: '/tools/dns', label: 'DNS' },
  { key: 'whois', href: '/tools/whois', label: 'WHOIS' },
  { key: 'ssl', href: '/tools/ssl', label: 'SSL' },
  { key: 'blacklist', href: '/tools/blacklist', label: 'Blacklist' },
  { key: 'mail', href: '/tools/mail', label: 'Mail' },
  { key: 'http', href: '/tools/http', label: 'HTTP' },
  { key: 'ping', href: '/tools/ping', label: 'Ping' },
  { key: 'traceroute', href: '/tools/traceroute', label: 'Traceroute' },
  { key: 'mtr', href: '/tools/mtr', label: 'MTR' },
  { key: 'resolver', href: '/tools/resolver', label: 'Resolver' },
  { key: 'docs', href: '/docs', label: 'API' },
  { key: 'dashboard', href: '/dashboard', label: 'API keys' },
] as const;
// The RPKI and abuse tools are on /tools only: at 375 px the 13 entries already take three rows.
export type NavigationKey = (typeof NAVIGATION)[number]['key'] | 'lookup' | 'tools' | 'rpki' | 'abuse';

export interface PageOptions {
  readonly title: string;
  readonly description: string;
  readonly active: NavigationKey;
  /** The content of `<main>`, already escaped. */
  readonly main: string;
  readonly scripts?: readonly string[];
  /** Classic (non-module) scripts, by asset name, run before the modules (a UMD bundle). */
  readonly classicScripts?: readonly string[];
  readonly styles?: readonly string[];
  /** The value of the search box (a lookup page shows what was looked up). */
  readonly query?: string;
  /** Further `<head>` elements, already escaped (the dashboard's own files and its CSRF token). */
  readonly head?: string;
  /** Credit the loaded IP data's licences ask for (the /json answer's X-Data-Attribution). */
  readonly attribution: string;
}

/** Links in the credit text, as links (DB-IP's licence asks for one). */
function attributionHtml(text: string): string {
  return e(text).replace(/https?:\/\/[^\s,;)]+/g, (url) => `<a href="${url}">${url.replace(/^https?:\/\//, '')}</a>`);
}

/** The site's styles in cascade order: base and header, cards and forms, results, the tool pages. */
export const SITE_STYLES = ['site.css', 'cards.css', 'results.css', 'tools.css'] as const;

export function renderPage(assets: AssetStore, options: PageOptions): string {
  const navigation = NAVIGATION.map(
    (item) =>
      `<li><a href="${item.href}"${item.key === options.active ? ' aria-current="page"' : ''}>${item.label}</a></li>`,
  ).join('');
  const scripts = [
    ...(options.classicScripts ?? []).map((name) => `<script src="${assets.url(name)}" defer></script>`),
    ...['site.js', ...(options.scripts ?? [])].map(
      (name) => `<script type="module" src="${assets.url(name)}"></script>`,
    ),
  ].join('\n');
  const styles = [...SITE_STYLES, ...(options.styles ?? [])]
    .map((name) => `<link rel="stylesheet" href="${assets.url(name)}">`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(options.title)}</title>
<meta name="description" content="${e(options.description)}">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="${assets.url('icon.svg')}" type="image/svg+xml">
${styles}
${scripts}
${options.head ?? ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site-header">
<div class="inner">
<a class="brand" href="/"><img src="${assets.url('icon.svg')}" alt="" width="24" height="24">netinfo</a>
<form class="search" action="/lookup" method="get" role="search">
<label class="visually-hidden" for="site-search">IP address or AS number</label>
<input id="site-search" name="q" type="search" placeholder="IP address or AS number" value="${e(options.query ?? '')}" autocomplete="off" spellcheck="false" maxlength="100">
<button type="submit">Look up</button>
</form>
<nav class="site-nav" aria-label="Main"><ul>${navigation}</ul></nav>
</div>
</header>
<main id="main">
${options.main}
</main>
<footer class="site-footer">
<div class="inner">
<p>netinfo: open network information. Every answer on these pages comes from this instance's <a href="/docs">public API</a>, which you can call directly.</p>
${options.attribution ? `<p>IP data: ${attributionHtml(options.attribution)}.</p>` : ''}
<p>Map: <a href="https://www.naturalearthdata.com">Natural Earth</a> (public domain).</p>
</div>
</footer>
</body>
</html>
`;
}

/**
 * Nothing is fetched from another origin, scripts and styles come only from this one (no inline
 * code), the page cannot be framed, and forms post only here. `connect` adds the origins of
 * PUBLIC_IPV4_URL and PUBLIC_IPV6_URL, which the home page asks for the other address family.
 */
export function contentSecurityPolicy(connect: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "object-src 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function sendPage(reply: FastifyReply, html: string, policy: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .send(html);
}
