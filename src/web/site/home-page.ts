import { escapeHtml as e } from '../html.ts';
import type { AssetStore } from './assets.ts';
import { codeBlock, type IpAnswer, ipFactCards, rawJson } from './ip-view.ts';

export interface HomeView {
  readonly answer: IpAnswer;
  /** This instance's origin as the visitor reached it, for the terminal examples. */
  readonly origin: string;
  readonly publicIpv4Url: string | null;
  readonly publicIpv6Url: string | null;
}

/**
 * The visitor's address and its facts, rendered on the server from the /api/v1/json answer so they
 * show with JavaScript off. With PUBLIC_IPV4_URL and PUBLIC_IPV6_URL set, home.js asks each for
 * /api/v1/ipv6 and fills in the other family.
 */
export function renderHome(assets: AssetStore, view: HomeView): string {
  const { answer } = view;
  const family = answer.ip.includes(':') ? 'IPv6' : 'IPv4';
  const bothFamilies = view.publicIpv4Url !== null && view.publicIpv6Url !== null;
  const families = bothFamilies
    ? `<div class="family" data-family-url="${e(view.publicIpv4Url ?? '')}" data-family="4"><p class="label">IPv4</p><p class="address" aria-live="polite">${family === 'IPv4' ? e(answer.ip) : '…'}</p></div>
<div class="family" data-family-url="${e(view.publicIpv6Url ?? '')}" data-family="6"><p class="label">IPv6</p><p class="address" aria-live="polite">${family === 'IPv6' ? e(answer.ip) : '…'}</p></div>`
    : '';
  return `<h1 class="visually-hidden">What is my IP address</h1>
<section class="hero" aria-labelledby="my-ip-label">
<div><p class="label" id="my-ip-label">Your IP address (${family})</p><p class="address" id="my-ip">${e(answer.ip)}</p></div>
${families}
<div class="actions"><button type="button" class="secondary" data-copy="${e(answer.ip)}">Copy address</button><a class="button secondary" href="/lookup/${e(answer.ip)}">Share this lookup</a></div>
</section>
${ipFactCards(answer, assets.url('world.svg'))}
<section class="card" aria-labelledby="terminal-title">
<h2 id="terminal-title">From a terminal</h2>
<p>Your address as one line, or everything above as JSON:</p>
${codeBlock(`curl ${view.origin}/`, 'the plain-text command')}
${codeBlock(`curl ${view.origin}/api/v1/json`, 'the JSON command')}
${rawJson(answer, '/api/v1/json')}
</section>`;
}
