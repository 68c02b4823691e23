// How a measurement from several nodes shows: each view takes the probes the API chose and returns
// its `parts`, `add(event)` for each probe event as it arrives, and `finish()` at measurement_done.
import { hopName } from './stream-tool.js';
import { card, h, labelCells, table, unknown } from './tool.js';

const SVG = 'http://www.w3.org/2000/svg';
// The world map's projection (world-map.ts): x = longitude + 180, y = 84 - latitude, 360 by 142.
const MAP_NORTH = 84;
const MAP_WIDTH = 360;
const MAP_HEIGHT = 142;

const ms = (value) => (typeof value === 'number' ? `${Number(value.toPrecision(3))} ms` : '—');

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

function place(probe) {
  const where = probe.location ?? {};
  const text = [where.city, where.country, where.continent].filter(Boolean).join(', ');
  return text || unknown();
}

/** A node's row: its name, its place, then `cells`. */
function nodeRow(probe, headings, ...cells) {
  const name = h('th', { scope: 'row', class: 'mono' }, probe.node);
  return labelCells(h('tr', { 'data-node': probe.node }, name, h('td', {}, place(probe)), ...cells), headings);
}

/** Latency classes of the map's markers, with their legend; colour is never alone (the table says it too). */
const LATENCY = [
  { below: 30, class: 'lat-fast', label: 'under 30 ms' },
  { below: 100, class: 'lat-ok', label: '30–100 ms' },
  { below: 250, class: 'lat-slow', label: '100–250 ms' },
  { below: Number.POSITIVE_INFINITY, class: 'lat-bad', label: '250 ms or more' },
];
const latencyClass = (avg) => (typeof avg === 'number' ? LATENCY.find((step) => avg < step.below).class : 'lat-none');

/** Ping: one row per node (live as replies arrive), and each node on the map coloured by its average. */
export function pingView(_type, probes, mapUrl) {
  const state = new Map(probes.map((probe) => [probe.node, { probe, times: [], lost: 0, done: null, error: null }]));
  const headings = [
    'Node',
    'Location',
    { text: 'Replies', class: 'num' },
    { text: 'Loss', class: 'num' },
    'Min / avg / max',
  ];
  const rows = new Map();
  const markers = new Map();
  for (const { probe } of state.values()) {
    rows.set(
      probe.node,
      nodeRow(probe, headings, h('td', { class: 'num' }, '…'), h('td', { class: 'num' }), h('td', {})),
    );
  }

  const map = svg('svg', {
    class: 'map mesh-map',
    viewBox: `0 0 ${MAP_WIDTH} ${MAP_HEIGHT}`,
    role: 'img',
    'aria-label': 'The nodes on the world map, coloured by their average round trip.',
  });
  map.append(svg('image', { href: mapUrl ?? '', width: MAP_WIDTH, height: MAP_HEIGHT }));
  for (const { probe } of state.values()) {
    const { latitude, longitude } = probe.location ?? {};
    if (typeof latitude !== 'number' || typeof longitude !== 'number') continue;
    const title = svg('title');
    const marker = svg(
      'circle',
      {
        class: 'pin lat-none',
        cx: longitude + 180,
        cy: Math.min(MAP_HEIGHT, Math.max(0, MAP_NORTH - latitude)),
        r: 4,
      },
      title,
    );
    title.textContent = `${probe.node}: waiting`;
    markers.set(probe.node, { marker, title });
    map.append(marker);
  }
  const legend = h(
    'ul',
    { class: 'map-legend', 'aria-label': 'Marker colours' },
    ...[...LATENCY, { class: 'lat-none', label: 'no reply yet' }].map((step) =>
      h('li', {}, h('span', { class: `swatch ${step.class}`, 'aria-hidden': 'true' }), step.label),
    ),
  );
  const redraw = (node) => {
    const entry = state.get(node);
    const row = rows.get(node);
    if (!entry || !row) return;
    const { times, lost, done, error } = entry;
    const cells = row.children;
    const sent = done ? done.packets_sent : times.length + lost;
    const avg = done ? done.avg_ms : times.length ? times.reduce((sum, time) => sum + time, 0) / times.length : null;
    if (error) {
      cells[2].textContent = '—';
      cells[3].textContent = '—';
      cells[4].replaceChildren(h('span', { class: 'badge bad' }, 'failed'), ` ${error}`);
    } else {
      cells[2].textContent = `${done ? done.packets_received : times.length} of ${sent}`;
      cells[3].textContent = sent ? `${done ? done.packet_loss : Math.round((100 * lost) / sent)}%` : '';
      const min = done ? done.min_ms : Math.min(...times);
      const max = done ? done.max_ms : Math.max(...times);
      cells[4].textContent = avg === null ? (sent ? 'no reply' : '') : `${ms(min)} / ${ms(avg)} / ${ms(max)}`;
    }
    const shown = markers.get(node);
    if (shown) {
      shown.marker.setAttribute('class', `pin ${latencyClass(avg)}`);
      shown.title.textContent = `${node}: ${avg === null ? 'no reply' : `average ${ms(avg)}`}`;
    }
  };
  return {
    parts: [
      card('Round trips by node', table('Round trips by node', headings, [...rows.values()], { class: 'mesh-table' })),
      card('Where the nodes are', map, legend),
    ],
    add(event) {
      const entry = state.get(event.node);
      if (!entry) return;
      if (event.type === 'reply') entry.times.push(event.time_ms);
      else if (event.type === 'timeout') entry.lost += 1;
      else if (event.type === 'done') entry.done = event;
      else if (event.type === 'error') entry.error = event.message;
      redraw(event.node);
    },
    finish() {},
  };
}

const HOP_HEADINGS = {
  traceroute: [{ text: 'Hop', class: 'num' }, 'Address', 'Name', { text: 'Round trips', class: 'num' }],
  mtr: [
    { text: 'Hop', class: 'num' },
    'Address',
    'Name',
    { text: 'Loss', class: 'num' },
    { text: 'Avg', class: 'num' },
    { text: 'Best / worst', class: 'num' },
  ],
};

function hopCells(type, hop, previous) {
  const address = h('td', { class: 'mono' }, hop.ip ?? '*');
  if (type === 'mtr') {
    return [
      address,
      h('td', {}, hopName(hop)),
      h('td', { class: 'num' }, `${hop.loss}%`),
      h('td', { class: 'num' }, ms(hop.avg_ms)),
      h('td', { class: 'num' }, `${ms(hop.best_ms)} / ${ms(hop.worst_ms)}`),
    ];
  }
  // Traceroute sends a hop once per answer: the round trips add up in one row.
  const times = [...(previous ?? []), hop.rtt_ms === null ? '*' : ms(hop.rtt_ms)];
  return [
    address,
    h('td', {}, hopName(hop)),
    h('td', { class: 'num', 'data-times': JSON.stringify(times) }, times.join(', ')),
  ];
}

/** Traceroute and MTR: one table per node, its hops as they arrive. */
export function hopsView(type, probes) {
  const headings = HOP_HEADINGS[type];
  const tables = new Map();
  const parts = probes.map((probe) => {
    const rows = h('tbody');
    const verdict = h('p', { class: 'hint' }, 'Waiting for the first hop…');
    const wrap = table(`Hops from ${probe.node}`, headings, []);
    wrap.querySelector('tbody').replaceWith(rows);
    tables.set(probe.node, { rows, verdict });
    const where = place(probe);
    return card(`From ${probe.node}`, h('p', { class: 'hint' }, 'Location: ', where), verdict, wrap);
  });
  const putHop = (rows, hop) => {
    const known = [...rows.children].find((row) => Number(row.dataset.hop) === hop.hop);
    const previous = known ? JSON.parse(known.lastElementChild.dataset.times ?? '[]') : null;
    const row = labelCells(
      h('tr', { 'data-hop': hop.hop }, h('td', { class: 'num' }, String(hop.hop)), ...hopCells(type, hop, previous)),
      headings,
    );
    if (known) known.replaceWith(row);
    else rows.append(row);
  };
  return {
    parts,
    add(event) {
      const shown = tables.get(event.node);
      if (!shown) return;
      if (event.type === 'start') shown.verdict.textContent = `To ${event.host} (${event.resolved_ip}).`;
      else if (event.type === 'hop') putHop(shown.rows, event);
      else if (event.type === 'error')
        shown.verdict.replaceChildren(h('span', { class: 'badge bad' }, 'failed'), ` ${event.message}`);
      else if (event.type === 'done') {
        if (type === 'mtr') shown.rows.replaceChildren();
        for (const hop of event.hops ?? []) putHop(shown.rows, hop);
        shown.verdict.textContent =
          type === 'mtr'
            ? `Done: ${event.hops?.length ?? 0} hops.`
            : event.reached
              ? `Reached in ${event.total_hops} hops.`
              : `Not reached after ${event.total_hops} hops.`;
      }
    },
    finish() {},
  };
}

const shortDate = (value) => (value ? String(value).slice(0, 10) : '');

/** The columns of an answer per type; `compare` columns highlight a value not every node gave. */
const COLUMNS = {
  dns: [
    { text: 'Status', compare: true, value: (answer) => answer.status },
    {
      text: 'Answers',
      compare: true,
      value: (answer) =>
        (answer.records ?? [])
          .filter((record) => record.record_type !== 'RRSIG')
          .map((record) => record.value)
          .sort()
          .join(', ') || 'none',
    },
  ],
  http: [
    { text: 'Status', compare: true, value: (answer) => String(answer.status) },
    { text: 'Address', compare: true, value: (answer) => answer.address ?? '' },
    ...['dns', 'tcp', 'tls', 'first_byte', 'total'].map((phase) => ({
      text: { dns: 'DNS', tcp: 'TCP', tls: 'TLS', first_byte: 'Waiting', total: 'Total' }[phase],
      class: 'num',
      value: (answer) => ms(answer.timings?.[phase]),
    })),
  ],
  ssl: [
    {
      text: 'Valid',
      compare: true,
      value: (answer) =>
        answer.valid ? 'valid' : `invalid${answer.validation_error ? `: ${answer.validation_error}` : ''}`,
    },
    { text: 'Expires', compare: true, value: (answer) => shortDate(answer.valid_to) },
    { text: 'Issuer', compare: true, value: (answer) => answer.issuer_org ?? answer.issuer ?? '' },
  ],
};

/** DNS, HTTP and TLS: one row per node, and the values that differ between nodes highlighted. */
export function resultsView(type, probes) {
  const columns = COLUMNS[type];
  const headings = ['Node', 'Location', ...columns.map((column) => ({ text: column.text, class: column.class }))];
  const answers = new Map();
  const rows = new Map(
    probes.map((probe) => [probe.node, nodeRow(probe, headings, h('td', { colspan: columns.length }, '…'))]),
  );
  const note = h('p', { class: 'hint' }, 'A highlighted value is one not every node gave.');
  const highlight = () => {
    for (const [index, column] of columns.entries()) {
      if (!column.compare) continue;
      const values = [...answers.values()].map((answer) => column.value(answer));
      const differs = new Set(values).size > 1;
      for (const [node, answer] of answers) {
        const cell = rows.get(node)?.children[index + 2];
        const value = column.value(answer);
        cell?.replaceChildren(differs ? h('mark', { title: 'not every node gave this' }, value) : value);
      }
    }
  };
  return {
    parts: [
      card('Answers by node', note, table('Answers by node', headings, [...rows.values()], { class: 'mesh-table' })),
    ],
    add(event) {
      const row = rows.get(event.node);
      if (!row) return;
      if (event.type === 'error') {
        row.lastElementChild.replaceChildren(h('span', { class: 'badge bad' }, 'failed'), ` ${event.message}`);
        return;
      }
      if (event.type !== 'result') return;
      answers.set(event.node, event.result);
      row.lastElementChild.remove();
      row.append(...columns.map((column) => h('td', { class: column.class }, column.value(event.result))));
      labelCells(row, headings);
      highlight();
    },
    finish() {},
  };
}
