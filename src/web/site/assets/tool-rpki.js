// The RPKI validity page: the state in the lookup pages' words and badge classes (rpki-view.ts's
// BADGE_CLASS and LONG, held equal by test/web/tool-rpki-browser.test.ts), and the VRPs behind it.
import { shortDate, startJsonTool } from './json-tool.js';
import { card, h, plural, table } from './tool.js';

const BADGE_CLASS = { valid: 'good', invalid: 'bad', 'not-found': 'neutral' };
const LONG = {
  valid: 'RPKI valid',
  invalid: 'RPKI invalid',
  'not-found': 'No ROA',
  asn: 'origin AS not authorised',
  length: 'more specific than the ROA allows',
};
// Routinator says `as` where network.rpki says `asn`.
const REASON = { as: 'asn', length: 'length' };

const GROUPS = [
  ['matched', 'Matched: this origin, this length allowed'],
  ['unmatched_as', 'Other AS'],
  ['unmatched_length', 'This origin, maxLength too short'],
];

function ago(ms) {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} days`;
}

// AS0 is no network to look up (RFC 7607).
const asLink = (asn) => (asn === 'AS0' ? 'AS0' : h('a', { href: `/lookup/${asn}` }, asn));

function vrpTable([key, title], vrps) {
  const rows = vrps.map((vrp) =>
    h(
      'tr',
      {},
      h('td', { class: 'mono' }, vrp.prefix),
      h('td', { class: 'num' }, `/${vrp.max_length}`),
      h('td', { class: 'mono' }, asLink(vrp.asn)),
    ),
  );
  return h(
    'section',
    { class: `vrp-group ${key}` },
    h('h3', {}, `${title} (${vrps.length})`),
    rows.length
      ? table(title, ['Prefix', { text: 'Max length', class: 'num' }, 'AS'], rows)
      : h('p', { class: 'hint' }, 'None.'),
  );
}

function rpkiResult(answer) {
  const { route, validity } = answer.validated_route;
  const reason = REASON[validity.reason];
  const words = `${LONG[validity.state]}${reason ? `: ${LONG[reason]}` : ''}`;
  const badge = h('p', {}, h('span', { class: `badge rpki ${BADGE_CLASS[validity.state]}` }, words));
  const generated = answer.generatedTime
    ? `VRPs generated ${ago(Date.now() - Date.parse(answer.generatedTime))} ago by the validator (${shortDate(answer.generatedTime)}).`
    : 'The validator’s export does not say when it made the VRPs.';
  const vrps = validity.VRPs;
  const total = GROUPS.reduce((sum, [key]) => sum + vrps[key].length, 0);
  return {
    parts: [
      card(
        `${route.prefix} from ${route.origin_asn}`,
        badge,
        h('p', {}, validity.description),
        h('p', { class: 'hint' }, `${plural(total, 'covering VRP')}.`),
        ...GROUPS.map((group) => vrpTable(group, vrps[group[0]])),
        h('p', { class: 'hint rpki-age' }, generated),
      ),
    ],
    status: `${route.prefix} from ${route.origin_asn}: ${words}.`,
  };
}

startJsonTool(rpkiResult);
