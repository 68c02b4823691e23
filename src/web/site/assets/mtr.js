// The MTR page: a table of hops read from /api/v1/mtr's events as they arrive. A hop's event
// repeats every round with its figures so far: the page keeps the latest per hop, replacing its row
// in place (rows stay in hop order), and when the run is done shows the final figures and whether
// the destination answered.

import { meshRunner } from './mesh-tool.js';
import { followStream, hopName } from './stream-tool.js';
import { apiCallCard, card, h, labelCells, say, startTool, table } from './tool.js';

const ms = (value) => (value === null || value === undefined ? '' : `${Number(value.toPrecision(3))} ms`);

const HEADINGS = [
  { text: 'Hop', class: 'num' },
  'Address',
  'Host name',
  { text: 'Loss', class: 'num' },
  { text: 'Sent', class: 'num' },
  { text: 'Last', class: 'num' },
  { text: 'Avg', class: 'num' },
  { text: 'Best', class: 'num' },
  { text: 'Worst', class: 'num' },
  { text: 'StDev', class: 'num' },
];

/** One hop's row from its latest figures; a hop that never answered says so, its times empty. */
function hopRow(hop) {
  const silent = hop.ip === null;
  const name = hopName(hop);
  return labelCells(
    h(
      'tr',
      { 'data-hop': hop.hop, class: silent ? 'silent' : null },
      h('td', { class: 'num' }, String(hop.hop)),
      h('td', { class: 'mono' }, silent ? '*' : hop.ip),
      h('td', { class: 'mono' }, name),
      h('td', { class: `num${hop.loss > 0 ? ' lossy' : ''}` }, `${hop.loss}%`),
      h('td', { class: 'num' }, String(hop.sent)),
      h('td', { class: 'num' }, ms(hop.last_ms)),
      h('td', { class: 'num' }, ms(hop.avg_ms)),
      h('td', { class: 'num' }, ms(hop.best_ms)),
      h('td', { class: 'num' }, ms(hop.worst_ms)),
      h('td', { class: 'num' }, ms(hop.stdev_ms)),
    ),
    HEADINGS,
  );
}

/** Puts a hop's row in place: replaces the row of the same hop, or inserts it before the first deeper hop. */
function showHop(rows, hop) {
  const row = hopRow(hop);
  const known = [...rows.children].find((existing) => Number(existing.dataset.hop) === hop.hop);
  if (known) {
    known.replaceWith(row);
    return;
  }
  const deeper = [...rows.children].find((existing) => Number(existing.dataset.hop) > hop.hop);
  rows.insertBefore(row, deeper ?? null);
}

function outcomeOf(done, target) {
  const count = done.hops.length;
  const silent = done.hops.filter((hop) => hop.ip === null).length;
  const last = done.hops.at(-1);
  const silentNote = silent > 0 ? ` ${silent === 1 ? 'One hop' : `${silent} hops`} never answered.` : '';
  if (done.reached) {
    const loss = last ? ` ${last.loss}% loss at the destination.` : '';
    return {
      text: `Reached ${target} in ${count} ${count === 1 ? 'hop' : 'hops'}.${loss}${silentNote}`,
      tone: last && last.loss > 0 ? 'warn' : 'good',
    };
  }
  return {
    text: `Not reached: ${target} did not answer; ${count} ${count === 1 ? 'hop' : 'hops'} shown.${silentNote}`,
    tone: 'bad',
  };
}

async function runMtr(run) {
  const { form, apiPath, result, status } = run;
  const count = Number(form.elements.namedItem('count')?.value) || 10;
  const events = [];
  const heading = h('p', { class: 'hint' }, 'Starting…');
  const hops = table('Hops', HEADINGS, [], { id: 'mtr-hops' });
  const rows = hops.querySelector('tbody');
  const outcome = h('div', { 'aria-live': 'polite' });
  const api = apiCallCard(apiPath, events, { stream: true });
  result.replaceChildren(card('Hops', heading, hops, outcome), api);
  say(status, 'Running MTR…', true);
  let target = '';
  await followStream(run, {
    what: 'MTR',
    api,
    events,
    outcome,
    measured: () => rows.children.length > 0,
    emptyParts: [heading, hops],
    onEvent(event) {
      if (event.type === 'start') {
        target = event.resolved_ip;
        heading.textContent = `MTR to ${event.host}${event.host === event.resolved_ip ? '' : ` (${event.resolved_ip})`}: ${count} ${count === 1 ? 'round' : 'rounds'}, one a second; each hop's row shows its figures so far.`;
      } else if (event.type === 'hop') {
        showHop(rows, event);
        say(status, `Running MTR: hop ${event.hop}, ${event.sent} of ${count} sent…`, true);
      }
    },
    onDone(event) {
      // The final figures: every hop shown, nothing awaited any more.
      rows.replaceChildren(...event.hops.map(hopRow));
      const { text, tone } = outcomeOf(event, target);
      outcome.replaceChildren(h('p', { class: `verdict ${tone}`, id: 'mtr-summary' }, text));
      say(status, text);
    },
  });
}

startTool(runMtr, meshRunner('mtr'));
