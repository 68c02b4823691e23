// The ping page: reads /api/v1/ping's events as they arrive and grows a latency chart (an SVG drawn
// here: x the request number, y the round trip), a table of replies and, at the end, the summary.
// With protocol=tcp each request is a TCP connect: a reply has no TTL ("—"), and a connect that
// failed says why (refused, unreachable, timeout).

import { chartFrame, ms, svg } from './chart.js';
import { meshRunner } from './mesh-tool.js';
import { followStream } from './stream-tool.js';
import { apiCallCard, card, h, labelCells, plural, say, startTool, table } from './tool.js';

const HEIGHT = 220;
const PAD = { right: 14, top: 16, bottom: 30 };

/**
 * Draws the chart for the results so far: one point per reply, a mark on the top edge per timeout.
 * Redrawn whole on every event (at most 10 points) and on resize.
 */
function drawChart(chart, results, count) {
  const replies = results.filter((result) => result.type === 'reply');
  const lost = results.filter((result) => result.type === 'timeout');
  const { parts, left, plotWidth, plotHeight, y } = chartFrame(
    chart,
    Math.max(0, ...replies.map((reply) => reply.time_ms)),
    ms,
    { height: HEIGHT, pad: PAD },
  );
  const last = Math.max(count, ...results.map((result) => result.seq));
  const x = (seq) => left + (last === 1 ? plotWidth / 2 : ((seq - 1) / (last - 1)) * plotWidth);
  const labelEvery = Math.ceil(last / Math.max(2, Math.floor(plotWidth / 28)));
  for (let seq = 1; seq <= last; seq++) {
    if ((seq - 1) % labelEvery !== 0 && seq !== last) continue;
    parts.push(
      svg(
        'text',
        { class: 'axis-label', x: x(seq), y: HEIGHT - PAD.bottom + 18, 'text-anchor': 'middle' },
        String(seq),
      ),
    );
  }
  if (replies.length > 1) {
    const line = replies.map((reply) => `${x(reply.seq).toFixed(1)},${y(reply.time_ms).toFixed(1)}`).join(' ');
    parts.push(svg('polyline', { class: 'series', points: line }));
  }
  for (const reply of replies) {
    const point = svg('circle', { class: 'point', cx: x(reply.seq), cy: y(reply.time_ms), r: 4.5 });
    point.append(svg('title', {}, `Request ${reply.seq}: ${ms(reply.time_ms)}`));
    parts.push(point);
  }
  for (const timeout of lost) {
    const cx = x(timeout.seq);
    const mark = svg('path', { class: 'lost', d: `M${cx - 6},${PAD.top - 6} h12 l-6,10 z` });
    mark.append(svg('title', {}, `Request ${timeout.seq}: ${TCP_FAILURES[timeout.reason]?.badge ?? 'no reply'}`));
    parts.push(mark, svg('line', { class: 'lost-line', x1: cx, x2: cx, y1: PAD.top + 4, y2: PAD.top + plotHeight }));
  }
  chart.replaceChildren(...parts);
  chart.setAttribute(
    'aria-label',
    `Round-trip times: ${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}, ${lost.length} lost, of ${plural(count, 'request')}.`,
  );
}

const HEADINGS = [
  { text: 'Request', class: 'num' },
  'Result',
  'From',
  { text: 'Time', class: 'num' },
  { text: 'TTL', class: 'num' },
];

/** A TCP connect that failed: its badge and why, by the API's reason. */
const TCP_FAILURES = {
  refused: { badge: 'refused', why: 'Refused: the host answered with a reset (nothing listens on the port).' },
  unreachable: { badge: 'unreachable', why: 'Unreachable: an ICMP error or no route stopped the connect.' },
  timeout: { badge: 'timeout', why: 'Timeout: no answer to the connect within 2 s.' },
};

function resultRow(event) {
  if (event.type === 'reply') {
    return h(
      'tr',
      {},
      h('td', { class: 'num' }, String(event.seq)),
      h('td', {}, h('span', { class: 'badge good' }, event.late ? 'late reply' : 'reply')),
      h('td', { class: 'mono' }, event.ip),
      h('td', { class: 'num' }, ms(event.time_ms)),
      // A TCP connect has no TTL to read: the API sends null.
      h(
        'td',
        { class: 'num' },
        event.ttl === null
          ? h('span', { class: 'unknown', title: 'no TTL for a TCP connect' }, '—')
          : String(event.ttl),
      ),
    );
  }
  const tcp = TCP_FAILURES[event.reason];
  const why = tcp
    ? tcp.why
    : event.reason === 'icmp_error'
      ? `${event.message ?? 'ICMP error'}${event.from ? ` from ${event.from}` : ''}`
      : 'no reply';
  return h(
    'tr',
    { class: 'lost-row', 'data-reason': event.reason },
    h('td', { class: 'num' }, String(event.seq)),
    h('td', {}, h('span', { class: 'badge bad' }, tcp ? tcp.badge : 'lost')),
    h('td', { colspan: 3, 'data-label': 'Why' }, why),
  );
}

function summaryLine(done) {
  const item = (label, value) => h('span', {}, `${label} `, h('strong', {}, value));
  return h(
    'p',
    { class: 'summary-line', id: 'ping-summary' },
    item('Sent', String(done.packets_sent)),
    ' ',
    item('Received', String(done.packets_received)),
    ' ',
    item('Loss', `${done.packet_loss}%`),
    ' ',
    done.packets_received > 0
      ? item('Min / avg / max', `${ms(done.min_ms)} / ${ms(done.avg_ms)} / ${ms(done.max_ms)}`)
      : item('Round trips', 'none'),
  );
}

async function runPing(run) {
  const { form, apiPath, result, status, signal } = run;
  const count = Number(form.elements.namedItem('count')?.value) || 4;
  const port =
    form.elements.namedItem('protocol')?.value === 'tcp' ? form.elements.namedItem('port')?.value || '443' : null;
  const events = [];
  const results = [];
  const chart = svg('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': 'Round-trip times: waiting for the first reply.',
  });
  const summary = h('div', { 'aria-live': 'polite' });
  const heading = h('p', { class: 'hint' }, 'Starting…');
  const api = apiCallCard(apiPath, events, { stream: true });
  const replies = table('Replies', HEADINGS, []);
  const rows = replies.querySelector('tbody');
  const repliesCard = card('Replies', replies);
  result.replaceChildren(card('Round-trip times', heading, chart, summary), repliesCard, api);
  const redraw = () => drawChart(chart, results, count);
  redraw();
  const observer = new ResizeObserver(redraw);
  observer.observe(result);
  signal.addEventListener('abort', () => observer.disconnect());
  say(status, 'Pinging…', true);
  await followStream(run, {
    what: 'ping',
    api,
    events,
    outcome: summary,
    measured: () => results.length > 0,
    // Nothing was measured: no empty chart and table, only what went wrong.
    emptyParts: [heading, chart, repliesCard],
    onEvent(event) {
      if (event.type === 'start') {
        const target = `${event.host}${event.host === event.resolved_ip ? '' : ` (${event.resolved_ip})`}`;
        heading.textContent =
          port === null
            ? `Pinging ${target} with ${count} ${count === 1 ? 'request' : 'requests'}, one a second.`
            : `Connecting to ${target} on TCP port ${port}, ${count} ${count === 1 ? 'time' : 'times'}, one a second; each time is the connect's.`;
      } else if (event.type === 'reply' || event.type === 'timeout') {
        // A late reply replaces the timeout sent for its request.
        const earlier = results.findIndex((known) => known.seq === event.seq);
        if (earlier === -1) {
          results.push(event);
          rows.append(labelCells(resultRow(event), HEADINGS));
        } else {
          results[earlier] = event;
          rows.children[earlier]?.replaceWith(labelCells(resultRow(event), HEADINGS));
        }
        redraw();
      }
    },
    onDone(event) {
      summary.replaceChildren(summaryLine(event));
      say(
        status,
        `Done: ${event.packets_received} of ${event.packets_sent} ${event.packets_sent === 1 ? 'reply' : 'replies'}, ${event.packet_loss}% loss.`,
      );
    },
  });
}

startTool(runPing, meshRunner('ping'));
