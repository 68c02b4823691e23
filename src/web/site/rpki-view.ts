import type { Static } from 'typebox';
import type { NetworkRpki } from '../../rpki/answers.ts';
import type { AsnRpkiBody } from '../../rpki/schema.ts';
import { escapeHtml as e, grouped, utcMinute } from './html.ts';

export type AsnRpki = Static<typeof AsnRpkiBody>;
// From the domain type: TypeBox infers `never` for a union of mapped literals (the schema's).
type Status = NetworkRpki['status'];
type Reason = NetworkRpki['reason'];

/** When the loaded VRP set was made and how long ago: the validator's time (`generated`), else its install's. */
export interface VrpSetAge {
  readonly at: number;
  readonly ageMs: number;
  readonly generated: boolean;
  /** Older than /readyz allows (a day): the refresh is failing. */
  readonly stale: boolean;
}

export const BADGE_CLASS: Record<Status, string> = { valid: 'good', invalid: 'bad', 'not-found': 'neutral' };
type Words = { readonly [S in Status]: string } & { readonly [R in NonNullable<Reason>]: string };
// Words beside the colour, always: a badge never says its state by colour alone.
export const LONG: Words = {
  valid: 'RPKI valid',
  invalid: 'RPKI invalid',
  'not-found': 'No ROA',
  asn: 'origin AS not authorised',
  length: 'more specific than the ROA allows',
};
// A prefix list can hold 500 of these.
const SHORT: Words = {
  valid: 'valid',
  invalid: 'invalid',
  'not-found': 'no ROA',
  asn: 'origin AS',
  length: 'too specific',
};

function badge(status: Status, reason: Reason, words: Words, extra = ''): string {
  const why = reason === undefined ? '' : `: ${words[reason]}`;
  return `<span class="badge rpki ${BADGE_CLASS[status]}${extra}">${words[status]}${why}</span>`;
}

/** At most this many covering VRPs are listed; the raw JSON below the cards has them all. */
const LISTED_VRPS = 10;

/**
 * The network card's RPKI row: the badge and the covering VRPs. Without `rpki` beside a route and
 * an origin, the API had no VRP set to validate them against, and the row says so; without a
 * route or an origin there is nothing to validate, and no row.
 */
export function rpkiFacts(network: { asn?: string; route?: string; rpki?: NetworkRpki } | undefined): string {
  if (network?.rpki === undefined) {
    return network?.route && network.asn
      ? '<dt>Route origin</dt><dd><span class="unknown">RPKI: no VRP set loaded</span></dd>'
      : '';
  }
  const { status, reason, vrps } = network.rpki;
  // AS0 is no network to look up (RFC 7607: the prefix may not be announced).
  const shown = vrps.slice(0, LISTED_VRPS).map((vrp) => {
    const origin = vrp.asn === 'AS0' ? 'AS0' : `<a href="/lookup/${e(vrp.asn)}">${e(vrp.asn)}</a>`;
    return `<li>${e(vrp.prefix)} <span class="origin"><span class="max">max /${vrp.maxLength}</span> ${origin}</span></li>`;
  });
  if (vrps.length > shown.length)
    shown.push(`<li class="hint">${vrps.length - shown.length} more in the raw JSON</li>`);
  const list = shown.length === 0 ? '' : `<ul class="vrps mono" aria-label="Covering VRPs">${shown.join('')}</ul>`;
  const tool = network.route && network.asn ? rpkiToolLink(network.route, network.asn) : '';
  return `<dt>Route origin</dt><dd>${badge(status, reason, LONG)}${list}${tool}</dd>`;
}

function rpkiToolLink(route: string, asn: string): string {
  const query = new URLSearchParams({ prefix: route, asn });
  return `<a class="rpki-tool" href="/tools/rpki?${e(query.toString())}">Validity in detail</a>`;
}

function ago(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} days`;
}

/** "VRPs generated 40 min ago by the validator": the age of the set every RPKI state on the page comes from. */
export function vrpSetAgeNote(set: VrpSetAge | undefined): string {
  if (set === undefined) return '';
  const time = `<time datetime="${new Date(set.at).toISOString()}">${utcMinute(set.at)}</time>`;
  const stale = set.stale
    ? ' <strong class="rpki-stale">Over a day old: this instance cannot refresh it, so ROAs made or withdrawn since are missing.</strong>'
    : '';
  return set.generated
    ? `<p class="hint rpki-age">VRPs generated ${ago(set.ageMs)} ago by the validator (${time}).${stale}</p>`
    : `<p class="hint rpki-age">VRPs installed ${ago(set.ageMs)} ago (${time}); the validator's export does not say when it made them.${stale}</p>`;
}

/** A listed prefix's status, short: the list can hold 500. */
export function prefixBadge(entry: { status: Status; reason?: Reason } | undefined): string {
  return entry === undefined ? '' : ` ${badge(entry.status, entry.reason, SHORT, ' small')}`;
}

/**
 * The ASN page's RPKI card (none without a VRP set: the address space card says so): the counts as
 * a stacked bar and in words (the bar only repeats them, so screen readers skip it). SVG
 * attributes, not inline style: the CSP allows none.
 */
export function asnRpkiCard(rpki: AsnRpki | undefined, asn: string, ageNote: string): string {
  if (rpki === undefined) return '';
  const { valid, invalid, notFound } = rpki.summary;
  const total = valid + invalid + notFound;
  const parts: [Status, number, string][] = [
    ['valid', valid, 'RPKI valid'],
    ['invalid', invalid, 'RPKI invalid'],
    ['not-found', notFound, 'no ROA'],
  ];
  // A state with any prefix takes at least 1% of the bar, so that one invalid among thousands shows;
  // a gap between parts marks where one ends, whatever the colours (green and red are alike in luminance).
  const widths = parts.map(([, count]) => (count === 0 ? 0 : Math.max(count, total / 100)));
  const gap = total / 150;
  let x = 0;
  const rects = parts.map(([status], index) => {
    const part = widths[index] ?? 0;
    if (part === 0) return '';
    const rect = `<rect class="${status}" x="${x.toFixed(2)}" width="${part.toFixed(2)}" height="1"/>`;
    x += part + gap;
    return rect;
  });
  const width = x - gap;
  const bar =
    total === 0
      ? ''
      : `<svg class="rpki-bar" viewBox="0 0 ${width.toFixed(2)} 1" preserveAspectRatio="none" aria-hidden="true">${rects.join('')}</svg>`;
  const counts = parts
    .map(([status, count, label]) => `<li class="badge ${BADGE_CLASS[status]}">${grouped(count)} ${label}</li>`)
    .join('');
  return `<section class="card" aria-labelledby="rpki-title"><h2 id="rpki-title">RPKI origin validation</h2>
${bar}<ul class="badges rpki-counts" aria-label="Prefixes by RPKI status">${counts}</ul>
<p class="hint">Each prefix of the ASN data validated as announced by ${e(asn)}, against the loaded VRPs.</p>
${ageNote}</section>`;
}
