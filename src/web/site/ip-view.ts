import type { Static } from 'typebox';
import type { IpInfoBody } from '../../ipinfo/answers/json-schema.ts';
import { escapeHtml as e } from './html.ts';
import { rpkiFacts } from './rpki-view.ts';
import { MAP_HEIGHT, MAP_WIDTH, mapPoint } from './world-map.ts';

export type IpAnswer = Static<typeof IpInfoBody>;

const unknown = '<span class="unknown">unknown</span>';

function fact(term: string, value: string | undefined, raw = false): string {
  return `<dt>${e(term)}</dt><dd>${value === undefined || value === '' ? unknown : raw ? value : e(value)}</dd>`;
}

/** The map window around a point: 100 by 50 degrees, kept inside the map. */
const WINDOW_WIDTH = 100;
const WINDOW_HEIGHT = 50;

/**
 * The self-hosted world map with a marker and, when the data gives one, the accuracy radius; the
 * view is the region around the point (the whole world when the answer has no coordinates).
 * Presentation attributes only, no inline style: the page's CSP allows none.
 */
export function mapFigure(mapUrl: string, location: IpAnswer['location'], label: string): string {
  const { latitude, longitude } = location ?? {};
  let viewBox = `0 0 ${MAP_WIDTH} ${MAP_HEIGHT}`;
  let marker = '';
  if (latitude !== undefined && longitude !== undefined) {
    const { x, y } = mapPoint(latitude, longitude);
    const left = Math.min(MAP_WIDTH - WINDOW_WIDTH, Math.max(0, x - WINDOW_WIDTH / 2));
    const top = Math.min(MAP_HEIGHT - WINDOW_HEIGHT, Math.max(0, y - WINDOW_HEIGHT / 2));
    viewBox = `${left.toFixed(1)} ${top.toFixed(1)} ${WINDOW_WIDTH} ${WINDOW_HEIGHT}`;
    // Kilometres to map degrees (111 km to a degree of latitude), drawn only when it says something.
    const radius = location?.accuracyRadius ? Math.min(20, location.accuracyRadius / 111) : 0;
    const at = `cx="${x.toFixed(2)}" cy="${y.toFixed(2)}"`;
    marker = `${radius > 0.6 ? `<circle class="radius" ${at} r="${radius.toFixed(2)}"/>` : ''}<circle class="pin" ${at} r="1.1"/>`;
  }
  return `<svg class="map" viewBox="${viewBox}" role="img" aria-label="${e(label)}"><image href="${e(mapUrl)}" width="${MAP_WIDTH}" height="${MAP_HEIGHT}"/>${marker}</svg>`;
}

function coordinates(location: IpAnswer['location']): string | undefined {
  if (location?.latitude === undefined || location.longitude === undefined) return undefined;
  const radius = location.accuracyRadius ? ` (within ${location.accuracyRadius} km)` : '';
  return `${location.latitude.toFixed(4)}, ${location.longitude.toFixed(4)}${radius}`;
}

function place(location: IpAnswer['location']): string {
  if (!location) return 'an unknown place';
  return [location.city, location.region, location.country].filter((part) => part).join(', ') || 'an unknown place';
}

/** `true` -> yes (bad), `false` -> no, absent -> unknown, with what each means. */
function indicator(name: string, value: boolean | undefined): string {
  if (value === undefined) return `<li class="badge" title="No loaded source covers this">${e(name)}: unknown</li>`;
  return `<li class="badge ${value ? 'yes' : 'no'}">${e(name)}: ${value ? 'yes' : 'no'}</li>`;
}

/**
 * The facts of one /api/v1/json answer as cards: location with the map, network, and security.
 * Shown as the API gave them: an absent field reads "unknown", never a guess. `rpkiAge` (the VRP
 * set's age, which the answer does not carry) is shown where the answer has an RPKI state;
 * `networkEnd` closes the network card.
 */
export function ipFactCards(answer: IpAnswer, mapUrl: string, rpkiAge = '', networkEnd = ''): string {
  const { location, network, security } = answer;
  const asn = network?.asn;
  const locationCard = answer.special
    ? `<section class="card" aria-labelledby="location-title"><h2 id="location-title">Location</h2>
<p>${e(answer.ip)} is a special-purpose address (${e(answer.special.name)}, ${e(answer.special.range)}, ${e(answer.special.rfc)}): it has no place on the internet's map.</p></section>`
    : `<section class="card" aria-labelledby="location-title"><h2 id="location-title">Location</h2>
<dl class="facts">
${fact('Country', location?.country ? `${location.country}${location.countryCode ? ` (${location.countryCode})` : ''}` : undefined)}
${fact('Region', location?.region)}
${fact('City', location?.city)}
${fact('Postal code', location?.postalCode)}
${fact('Time zone', location?.timezone)}
${fact('Coordinates', coordinates(location))}
</dl>
${mapFigure(mapUrl, location, `Map: ${answer.ip} is located near ${place(location)}`)}
</section>`;
  const networkCard = `<section class="card" aria-labelledby="network-title"><h2 id="network-title">Network</h2>
<dl class="facts">
${fact('ASN', asn ? `<a href="/lookup/${e(asn)}">${e(asn)}</a>` : undefined, true)}
${fact('Provider', network?.provider)}
${fact('Route', network?.route)}
${rpkiFacts(network)}
${fact('Type', answer.type)}
${fact('Hostname', answer.hostname)}
${fact('Address class', answer.class)}
${fact('Family', answer.ip.includes(':') ? 'IPv6' : 'IPv4')}
</dl>
${network?.rpki ? rpkiAge : ''}${networkEnd}</section>`;
  const securityCard = `<section class="card" aria-labelledby="security-title"><h2 id="security-title">Security</h2>
<ul class="badges">
${indicator('Bogon', security.bogon)}
${indicator('Tor exit', security.tor)}
${indicator('VPN', security.vpn)}
${indicator('Proxy', security.proxy)}
${indicator('Hosting', security.hosting)}
</ul>
<p class="hint">${
    security.sources.length === 0
      ? 'No security feed is loaded on this instance yet: only "bogon" is known.'
      : `Sources consulted: ${e(security.sources.join(', '))}.`
  } An indicator is unknown when no loaded source covers the address.</p>
</section>`;
  return `<div class="grid">${locationCard}${networkCard}${securityCard}</div>`;
}

/** The answer itself, folded: what the API returned, byte for byte as JSON. */
export function rawJson(answer: unknown, apiPath: string): string {
  return `<details><summary>Raw JSON from <code>${e(apiPath)}</code></summary><pre class="raw" tabindex="0">${e(JSON.stringify(answer, null, 2))}</pre></details>`;
}

/** A command in a dark block with a copy button (the button works once site.js runs). */
export function codeBlock(command: string, label: string): string {
  return `<div class="code"><button type="button" class="copy" data-copy="${e(command)}" aria-label="Copy ${e(label)}">Copy</button><pre><code>${e(command)}</code></pre></div>`;
}
