import { escapeHtml as e } from './html.ts';

/**
 * What a browser gets on a path that is no page: where it is, a search box as the way on (what
 * people type into a broken URL is mostly an address or an AS), and the site's main pages.
 */
export function renderNotFound(path: string): string {
  return `<h1>Page not found</h1>
<p class="lead">There is no page at <code>${e(path)}</code>. Look up an address or an AS instead, or go to one of the pages below.</p>
${searchCard()}
${mainPages()}`;
}

/** The same page's frame when the visitor's limit is spent: the API's message, which says when it resets. */
export function renderRefused(path: string, message: string): string {
  return `<h1>Too many requests</h1>
<p class="alert warn" role="alert">${e(message)}</p>
<p>There is no page at <code>${e(path)}</code> either way.</p>
${mainPages()}`;
}

function searchCard(): string {
  return `<section class="card" aria-labelledby="not-found-search-title">
<h2 id="not-found-search-title">Look something up</h2>
<form class="tool" action="/lookup" method="get" role="search">
<div class="field wide"><label for="not-found-search">IP address or AS number</label><input id="not-found-search" name="q" type="search" placeholder="192.0.2.1 or AS15169" autocomplete="off" spellcheck="false" maxlength="100" required></div>
<button type="submit">Look up</button>
</form>
</section>`;
}

function mainPages(): string {
  return `<ul>
<li><a href="/">Your IP address</a></li>
<li><a href="/tools">Network tools</a>: DNS, WHOIS, SSL, ping, traceroute…</li>
<li><a href="/docs">API reference</a></li>
</ul>`;
}
