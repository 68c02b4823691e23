// The traceroute page: the hop table fills row by row as /api/v1/traceroute's `hop` events arrive;
// when the trace is done, one POST /api/v1/batch with the hops' addresses adds each hop's country
// and network. Should that call fail, the columns say "unknown": the hops themselves stand.

import { meshRunner } from './mesh-tool.js';
import { followStream, hopName } from './stream-tool.js';
import {
  apiCallCard,
  apiErrorText,
  card,
  codeBlock,
  h,
  labelCells,
  plural,
  say,
  shellQuote,
  startTool,
  table,
  unknown,
} from './tool.js';

const ms = (value) => `${Number(value.toPrecision(3))} ms`;

const HEADINGS = [
  { text: 'Hop', class: 'num' },
  'Address',
  'Host name',
  { text: 'Round trip', class: 'num' },
  'Country',
  'Network',
];

function hopRow(event) {
  const silent = event.ip === null;
  const name = hopName(event);
  return h(
    'tr',
    { 'data-hop': event.hop, 'data-ip': event.ip ?? '', class: silent ? null : 'pending' },
    h('td', { class: 'num' }, String(event.hop)),
    h('td', { class: 'mono' }, silent ? '*' : event.ip),
    h('td', { class: 'mono' }, name),
    h(
      'td',
      { class: 'num' },
      event.rtt_ms === null ? '' : ms(event.rtt_ms),
      event.annotation ? ` ${event.annotation}` : '',
    ),
    h('td', { class: 'country' }, silent ? '' : '…'),
    h('td', { class: 'network' }, silent ? '' : '…'),
  );
}

/** Fills a hop's country and network from its /json-like answer in the batch; anything else reads "unknown". */
function locate(row, answer) {
  row.classList.remove('pending');
  const country = row.querySelector('.country');
  const network = row.querySelector('.network');
  if (!country || !network) return;
  if (!answer || typeof answer !== 'object' || 'error' in answer) {
    const why = answer && typeof answer.error === 'string' ? answer.error : 'no answer for this address';
    country.replaceChildren(h('span', { class: 'unknown', title: why }, 'unknown'));
    network.replaceChildren(h('span', { class: 'unknown', title: why }, 'unknown'));
    return;
  }
  if (answer.special) {
    country.replaceChildren(unknown(`none (${answer.special.name})`));
    network.replaceChildren(unknown(answer.special.range));
    return;
  }
  const place = answer.location?.country
    ? `${answer.location.country}${answer.location.countryCode ? ` (${answer.location.countryCode})` : ''}`
    : null;
  country.replaceChildren(place ?? unknown());
  const asn = answer.network?.asn;
  network.replaceChildren(
    asn ? h('a', { href: `/lookup/${asn}` }, asn) : unknown(),
    answer.network?.provider ? ` ${answer.network.provider}` : '',
  );
}

async function locateHops(rows, batchCard, notes, signal) {
  const addresses = [...new Set(rows.map((row) => row.dataset.ip).filter(Boolean))];
  if (addresses.length === 0) return;
  const body = JSON.stringify(addresses);
  batchCard.append(
    h('p', {}, 'Countries and networks of the hops, in one call:'),
    codeBlock(
      `curl -X POST -H 'content-type: application/json' --data ${shellQuote(body)} ${shellQuote(`${location.origin}/api/v1/batch`)}`,
      'the batch curl command',
    ),
  );
  let answers = null;
  let problem = null;
  let credit = null;
  try {
    const response = await fetch('/api/v1/batch', {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const json = await response.json().catch(() => null);
    // The IP data's licences ask for credit wherever it is shown (the API sends it with each answer).
    credit = response.headers.get('x-data-attribution');
    if (response.ok && json && typeof json === 'object') answers = json;
    else problem = apiErrorText(response.status, json);
  } catch (error) {
    if (signal.aborted) return;
    problem = `the batch call failed (${error instanceof Error ? error.message : String(error)})`;
  }
  if (signal.aborted) return;
  for (const row of rows)
    if (row.dataset.ip) locate(row, answers?.[row.dataset.ip] ?? (problem ? { error: problem } : null));
  if (problem) notes.append(h('p', { class: 'alert warn' }, `Countries and networks are unknown: ${problem}`));
  else if (credit) notes.append(h('p', { class: 'hint' }, `Countries and networks: ${credit}.`));
  else
    batchCard.append(
      h(
        'details',
        {},
        h('summary', {}, 'Raw JSON from /api/v1/batch'),
        h('pre', { class: 'raw', tabindex: 0 }, JSON.stringify(answers, null, 2)),
      ),
    );
}

/** How the probes go out, in words, from the form (UDP unless ICMP or TCP is chosen). */
function probesInWords(form) {
  const protocol = form.elements.namedItem('protocol')?.value;
  if (protocol === 'icmp') return 'ICMP echo requests';
  if (protocol === 'tcp') return `TCP SYNs to port ${form.elements.namedItem('port')?.value || '80'}`;
  return 'UDP datagrams';
}

async function runTraceroute(run) {
  const { form, apiPath, result, status, signal } = run;
  const probes = probesInWords(form);
  const events = [];
  const heading = h('p', { class: 'hint' }, 'Starting…');
  const hops = table('Hops', HEADINGS, [], { id: 'hops' });
  const rows = hops.querySelector('tbody');
  const outcome = h('div', { 'aria-live': 'polite' });
  const notes = h('div', {});
  const api = apiCallCard(apiPath, events, { stream: true });
  const batchCard = h('div', {});
  api.append(batchCard);
  result.replaceChildren(card('Route', heading, hops, outcome, notes), api);
  say(status, 'Tracing…', true);
  const live = await followStream(run, {
    what: 'traceroute',
    api,
    events,
    outcome,
    measured: () => (rows?.children.length ?? 0) > 0,
    emptyParts: [heading, hops],
    onEvent(event) {
      if (event.type === 'start') {
        heading.textContent = `Route to ${event.host}${event.host === event.resolved_ip ? '' : ` (${event.resolved_ip})`} with ${probes}, as the hops answer.`;
      } else if (event.type === 'hop') {
        rows?.append(labelCells(hopRow(event), HEADINGS));
        say(status, `Hop ${event.hop}…`, true);
      }
    },
    onDone(event) {
      outcome.replaceChildren(
        h(
          'p',
          { class: `verdict ${event.reached ? 'good' : 'warn'}` },
          event.reached
            ? `Reached in ${plural(event.total_hops, 'hop')}.`
            : `Not reached: traceroute stopped after ${plural(event.total_hops, 'hop')}.`,
        ),
      );
      say(status, event.reached ? `Reached in ${plural(event.total_hops, 'hop')}.` : 'Destination not reached.');
    },
  });
  if (!live) return;
  // The hops so far are worth locating even when the trace stopped early.
  await locateHops([...(rows?.children ?? [])], batchCard, notes, signal);
}

startTool(runTraceroute, meshRunner('traceroute'));
