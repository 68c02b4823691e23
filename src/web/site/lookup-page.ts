import type { AssetStore } from './assets.ts';
import { escapeHtml as e, grouped } from './html.ts';
import { type IpAnswer, ipFactCards, rawJson } from './ip-view.ts';
import { type AsnRpki, asnRpkiCard, prefixBadge } from './rpki-view.ts';

/** The answer of GET /api/v1/asn/{asn}, as the page reads it. */
export interface AsnPageAnswer {
  asn: string;
  name?: string;
  country?: string;
  prefixes: { ipv4: string[]; ipv6: string[] };
  prefixCount: { ipv4: number; ipv6: number };
  ipv4Addresses: number;
  type?: string;
  security: { vpn?: boolean; hosting?: boolean };
  rpki?: AsnRpki;
  sources: string[];
}

/** What the search box holds, as a lookup: `AS15169`, `as15169` or a bare number is an AS; the rest an address. */
export function lookupKind(target: string): 'asn' | 'ip' {
  return /^(as)?[0-9]+$/i.test(target) ? 'asn' : 'ip';
}

/**
 * Filled by abuse-contact.js from /api/v1/abuse after load, and hidden without it; no registry holds
 * a special-purpose address, so none is asked.
 */
function abuseContactLine(answer: IpAnswer): string {
  if (answer.special) return '';
  return `<p class="abuse-contact" data-abuse-ip="${e(answer.ip)}" aria-live="polite" hidden>Report abuse to <span class="value unknown">(asking the registry…)</span></p>`;
}

export function renderIpLookup(assets: AssetStore, answer: IpAnswer, apiPath: string, rpkiAge: string): string {
  const family = answer.ip.includes(':') ? 'IPv6' : 'IPv4';
  return `<h1>${e(answer.ip)}</h1>
<p class="lead">What this instance's data says about the ${family} address ${e(answer.ip)}.</p>
${ipFactCards(answer, assets.url('world.svg'), rpkiAge, abuseContactLine(answer))}
${rawJson(answer, apiPath)}`;
}

/** At most this many prefixes of each family are listed on the page; the API answer has them all. */
const LISTED_PREFIXES = 500;

type RpkiStatuses = ReadonlyMap<string, AsnRpki['prefixes'][number]>;

function prefixList(family: string, prefixes: readonly string[], count: number, rpki: RpkiStatuses): string {
  if (count === 0) return `<p class="unknown">No ${family} prefixes in the loaded data.</p>`;
  const shown = prefixes.slice(0, LISTED_PREFIXES);
  const more =
    count > shown.length
      ? `<p class="hint">${grouped(shown.length)} of ${grouped(count)} shown; the API answer lists them all.</p>`
      : '';
  return `<details${count <= 50 ? ' open' : ''}><summary>${grouped(count)} ${family} prefix${count === 1 ? '' : 'es'}</summary>
<ul class="prefixes mono">${shown.map((prefix) => `<li><a href="/lookup/${e(prefix.split('/')[0] ?? prefix)}">${e(prefix)}</a>${prefixBadge(rpki.get(prefix))}</li>`).join('')}</ul>${more}</details>`;
}

export function renderAsnLookup(answer: AsnPageAnswer, apiPath: string, rpkiAge: string): string {
  const statuses: RpkiStatuses = new Map(answer.rpki?.prefixes.map((entry) => [entry.prefix, entry]));
  const flag = (value: boolean | undefined) =>
    value === undefined ? '<span class="unknown">unknown</span>' : value ? 'yes' : 'no';
  return `<h1>${e(answer.asn)}${answer.name ? ` <span class="lead">${e(answer.name)}</span>` : ''}</h1>
<div class="grid">
<section class="card" aria-labelledby="as-title"><h2 id="as-title">Autonomous system</h2>
<dl class="facts">
<dt>Number</dt><dd>${e(answer.asn)}</dd>
<dt>Organisation</dt><dd>${answer.name ? e(answer.name) : '<span class="unknown">unknown</span>'}</dd>
<dt>Country</dt><dd>${answer.country ? e(answer.country) : '<span class="unknown">not in the loaded data</span>'}</dd>
<dt>Type</dt><dd>${answer.type ? e(answer.type) : '<span class="unknown">unknown</span>'}</dd>
<dt>VPN provider</dt><dd>${flag(answer.security.vpn)}</dd>
<dt>Hosting</dt><dd>${flag(answer.security.hosting)}</dd>
</dl></section>
<section class="card" aria-labelledby="space-title"><h2 id="space-title">Address space</h2>
<dl class="facts">
<dt>IPv4 prefixes</dt><dd>${grouped(answer.prefixCount.ipv4)}</dd>
<dt>IPv4 addresses</dt><dd>${grouped(answer.ipv4Addresses)}</dd>
<dt>IPv6 prefixes</dt><dd>${grouped(answer.prefixCount.ipv6)}</dd>
${answer.rpki ? '' : '<dt>RPKI</dt><dd><span class="unknown">no VRP set loaded</span></dd>'}
</dl></section>
${asnRpkiCard(answer.rpki, answer.asn, rpkiAge)}
</div>
<section class="card" aria-labelledby="prefixes-title"><h2 id="prefixes-title">Prefixes</h2>
${prefixList('IPv4', answer.prefixes.ipv4, answer.prefixCount.ipv4, statuses)}
${prefixList('IPv6', answer.prefixes.ipv6, answer.prefixCount.ipv6, statuses)}
</section>
${rawJson(answer, apiPath)}`;
}
