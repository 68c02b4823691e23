import type { AssetStore } from './assets.ts';
import { escapeHtml as e } from './html.ts';
import { codeBlock, type IpAnswer, ipFactCards, rawJson } from './ip-view.ts';

export interface HomeView {
  /** The connection's address: known without asking the API, so shown whatever it answers. */
  readonly ip: string;
  /** The /api/v1/json answer, or why there is none (a spent limit: the 429's message). */
  readonly facts: { readonly answer: IpAnswer } | { readonly refusal: string };
  /** The VRP set's age, shown beside an RPKI state. */
  readonly rpkiAge: string;
  /** This instance's origin as the visitor reached it, for the terminal examples. */
  readonly origin: string;
  readonly publicIpv4Url: string | null;
  readonly publicIpv6Url: string | null;
}

/**
 * The address boxes: with both family URLs, one per family, this connection's filled here and the
 * other by home.js (which a page showing them loads); without them, the one address this connection shows.
 */
export function renderAddresses(view: Pick<HomeView, 'ip' | 'publicIpv4Url' | 'publicIpv6Url'>): string {
  const { ip } = view;
  const family = ip.includes(':') ? 'IPv6' : 'IPv4';
  const familyBox = (number: 4 | 6, url: string | null) => {
    const mine = family === `IPv${number}`;
    return `<div class="family" data-family-url="${e(url ?? '')}" data-family="${number}"><p class="label">Your IPv${number} address${mine ? ' (this connection)' : ''}</p><p class="address"${mine ? ' id="my-ip"' : ''} aria-live="polite">${mine ? e(ip) : '…'}</p></div>`;
  };
  return view.publicIpv4Url !== null && view.publicIpv6Url !== null
    ? `${familyBox(4, view.publicIpv4Url)}${familyBox(6, view.publicIpv6Url)}`
    : `<div><p class="label" id="my-ip-label">Your IP address (${family})</p><p class="address" id="my-ip">${e(ip)}</p></div>`;
}

/**
 * The visitor's address and its facts, rendered on the server from the /api/v1/json answer so they
 * show with JavaScript off. With PUBLIC_IPV4_URL and PUBLIC_IPV6_URL set, home.js asks each for
 * /api/v1/ipv6 and fills in the other family.
 */
export function renderHome(assets: AssetStore, view: HomeView): string {
  const { ip, facts } = view;
  const addresses = renderAddresses(view);
  return `<h1 class="visually-hidden">What is my IP address</h1>
<section class="hero" aria-label="Your IP address">
${addresses}
<div class="actions"><button type="button" class="secondary" data-copy="${e(ip)}">Copy address</button><a class="button secondary" href="/lookup/${e(ip)}">Share this lookup</a></div>
</section>
${
  'answer' in facts
    ? ipFactCards(facts.answer, assets.url('world.svg'), view.rpkiAge)
    : `<div class="grid"><section class="card" aria-labelledby="facts-title"><h2 id="facts-title">Location, network and security</h2><p class="alert warn" role="alert">${e(facts.refusal)}</p></section></div>`
}
<section class="card" aria-labelledby="terminal-title">
<h2 id="terminal-title">From a terminal</h2>
<p>Your address as one line, or ${'answer' in facts ? 'everything above' : 'its facts'} as JSON:</p>
${codeBlock(`curl ${view.origin}/`, 'the plain-text command')}
${codeBlock(`curl ${view.origin}/api/v1/json`, 'the JSON command')}
${'answer' in facts ? rawJson(facts.answer, '/api/v1/json') : ''}
</section>`;
}
