// One monitor in the dashboard: its facts, a chart of its recent runs' response times, its incidents
// and its webhook deliveries with each attempt, read from /api/v1/monitors/{id} and its sub-resources.
import { chartFrame, ms, svg } from './chart.js';
import { apiErrorText, card, errorAlert, facts, h, networkErrorText, plural, table, unknown } from './tool.js';

const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? '';

/** A call of the account's API (session cookie, CSRF token): `{ ok, status, body }`; unreachable is status 0. */
export async function send(method, path, body) {
  const headers = { accept: 'application/json', 'X-CSRF-Token': csrfToken };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { ok: response.ok, status: response.status, body: await response.json().catch(() => null) };
  } catch (error) {
    return { ok: false, status: 0, body: null, error: networkErrorText(error) };
  }
}

export const failureText = (answer) => answer.error ?? apiErrorText(answer.status, answer.body);

export const utcMinute = (iso) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export const time = (iso) => (iso ? h('time', { datetime: iso }, utcMinute(iso)) : unknown('never'));

/** The state in words and colour: up, down, paused, or not yet run. */
export function stateBadge(monitor) {
  if (monitor.paused) return h('span', { class: 'badge' }, 'paused');
  if (monitor.state === null) return h('span', { class: 'badge' }, 'not yet run');
  return h('span', { class: `badge ${monitor.state === 'up' ? 'good' : 'bad'}` }, monitor.state);
}

const percent = (value) => (value === null ? unknown('no runs') : `${Number(value.toFixed(2))}%`);

export const uptime = (monitor) =>
  ['24h', '7d', '30d'].flatMap((span, index) => [
    index ? ' · ' : '',
    percent(monitor.uptime[span]),
    ` (${span.replace(/\D+/, (unit) => ` ${unit}`)})`,
  ]);

export const TYPE_NAMES = {
  http: 'HTTP',
  ssl: 'TLS',
  dns: 'DNS',
  blacklist: 'Blacklist',
  mail: 'Mail',
  ping: 'Ping',
  mtr: 'MTR',
};

const HEIGHT = 220;
const PAD = { right: 14, top: 18, bottom: 34 };

/**
 * The runs' latency (the type's own, else how long the run took) against time, oldest on the left.
 * A run that was down or failed is a red mark on the top edge with a dashed line, at its time.
 */
function drawRuns(chart, runs) {
  const ordered = [...runs].reverse();
  const latency = ordered.some((run) => run.response_ms !== null);
  const latencyOf = (run) => (latency ? run.response_ms : run.duration_ms);
  const measured = ordered.filter((run) => run.state === 'up' && latencyOf(run) !== null);
  const failed = ordered.filter((run) => run.state !== 'up');
  const { parts, left, plotWidth, y } = chartFrame(chart, Math.max(0, ...measured.map(latencyOf)), ms, {
    height: HEIGHT,
    pad: PAD,
  });
  const times = ordered.map((run) => Date.parse(run.started_at));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  const x = (run) =>
    left + (last === first ? plotWidth / 2 : ((Date.parse(run.started_at) - first) / (last - first)) * plotWidth);
  const bottom = HEIGHT - PAD.bottom;
  // Three times under the plot: the first run's, the middle's and the last's, in UTC.
  const moments = last === first ? [first] : [first, (first + last) / 2, last];
  moments.forEach((moment, index) => {
    const anchor = moments.length === 1 ? 'middle' : ['start', 'middle', 'end'][index];
    const at = left + (last === first ? plotWidth / 2 : ((moment - first) / (last - first)) * plotWidth);
    // Seconds while the runs span less than ten minutes, so the three times differ.
    const label = new Date(moment).toISOString().slice(11, last - first < 600_000 ? 19 : 16);
    parts.push(svg('text', { class: 'axis-label', x: at, y: bottom + 16, 'text-anchor': anchor }, label));
  });
  parts.push(
    svg(
      'text',
      { class: 'axis-label', x: left + plotWidth / 2, y: bottom + 30, 'text-anchor': 'middle' },
      'time (UTC)',
    ),
  );
  if (measured.length > 1) {
    const points = measured.map((run) => `${x(run).toFixed(1)},${y(latencyOf(run)).toFixed(1)}`).join(' ');
    parts.push(svg('polyline', { class: 'series', points }));
  }
  for (const run of measured) {
    const point = svg('circle', { class: 'point', cx: x(run), cy: y(latencyOf(run)), r: 3.5 });
    point.append(svg('title', {}, `${utcMinute(run.started_at)}: ${ms(latencyOf(run))} from ${run.node}`));
    parts.push(point);
  }
  for (const run of failed) {
    const cx = x(run);
    const mark = svg('path', { class: 'lost', d: `M${cx - 5},${PAD.top - 8} h10 l-5,8 z` });
    mark.append(svg('title', {}, `${utcMinute(run.started_at)}: ${run.state}${run.cause ? `, ${run.cause}` : ''}`));
    parts.push(mark, svg('line', { class: 'lost-line', x1: cx, x2: cx, y1: PAD.top + 2, y2: bottom }));
  }
  chart.replaceChildren(...parts);
  const what = latency ? 'Response times' : 'Run times';
  chart.setAttribute(
    'aria-label',
    `${what} of the last ${plural(runs.length, 'run')}: ${measured.length} up, ${failed.length} down or failed.`,
  );
  return what;
}

function runsCard(runs) {
  if (runs.length === 0) return card('Recent runs', h('p', {}, 'No run yet: the first comes at its interval.'));
  const chart = svg('svg', { class: 'chart', role: 'img' });
  const heading = h('p', { class: 'hint' });
  const section = card('Recent runs', heading, chart);
  const redraw = () => {
    const what = drawRuns(chart, runs);
    heading.textContent = `${what} in milliseconds, oldest on the left; a red mark on the top edge is a run that was down or failed.`;
  };
  // Drawn at the width it is shown at: once it is in the page, and again when that changes.
  new ResizeObserver(redraw).observe(section);
  const rows = runs
    .slice(0, 5)
    .map((run) =>
      h(
        'tr',
        {},
        h('td', {}, time(run.started_at)),
        h('td', { class: 'mono' }, run.node),
        h(
          'td',
          {},
          stateBadge({ state: run.state === 'error' ? 'down' : run.state }),
          run.state === 'error' ? ' error' : '',
        ),
        h('td', { class: 'num' }, run.response_ms === null ? unknown('—') : ms(run.response_ms)),
        h('td', {}, run.cause ?? ''),
      ),
    );
  section.append(
    table('The last runs', ['Started', 'Node', 'State', { text: 'Response', class: 'num' }, 'Cause'], rows),
  );
  return section;
}

function incidentsCard(incidents) {
  if (incidents.length === 0) return card('Incidents', h('p', {}, 'None: it has not been down.'));
  const rows = incidents.map((incident) =>
    h(
      'tr',
      {},
      h('td', {}, time(incident.started_at)),
      h('td', {}, incident.ended_at ? time(incident.ended_at) : h('span', { class: 'badge bad' }, 'open')),
      h('td', {}, incident.cause),
    ),
  );
  return card('Incidents', table('Incidents, newest first', ['Started', 'Ended', 'Cause'], rows));
}

const DELIVERY_BADGES = { delivered: 'good', failed: 'bad', removed: 'bad', pending: 'warn' };

function attemptText(attempt) {
  const outcome = attempt.status === null ? (attempt.error ?? 'no answer') : `HTTP ${attempt.status}`;
  return [
    time(attempt.at),
    `: ${outcome}${attempt.error && attempt.status !== null ? ` (${attempt.error})` : ''}, ${ms(attempt.duration_ms)}`,
  ];
}

function deliveriesCard(deliveries) {
  if (deliveries.length === 0) {
    return card('Webhook deliveries', h('p', {}, 'None yet: a webhook is sent when the state changes.'));
  }
  const items = deliveries.map((delivery) =>
    h(
      'li',
      { class: 'delivery' },
      h(
        'p',
        {},
        h('span', { class: `badge ${DELIVERY_BADGES[delivery.state] ?? ''}` }, delivery.state),
        ' ',
        h('strong', {}, delivery.event),
        ' to ',
        h('span', { class: 'mono' }, delivery.url),
        ', ',
        time(delivery.created_at),
        delivery.next_attempt_at ? [', next attempt ', time(delivery.next_attempt_at)] : null,
      ),
      delivery.attempts.length
        ? h(
            'ol',
            { class: 'attempts', 'aria-label': 'Attempts' },
            ...delivery.attempts.map((a) => h('li', {}, ...attemptText(a))),
          )
        : h('p', { class: 'hint' }, 'Not attempted yet.'),
    ),
  );
  return card('Webhook deliveries', h('ul', { class: 'deliveries' }, ...items));
}

function factsCard(monitor) {
  const from = monitor.from.length
    ? monitor.from
        .map((place) =>
          Object.entries(place)
            .map(([kind, value]) => `${kind} ${value}`)
            .join(' '),
        )
        .join('; ')
    : 'any one node';
  const notify = [...monitor.notify.webhooks, ...monitor.notify.emails];
  return card(
    'State',
    facts([
      ['State', [stateBadge(monitor), ...(monitor.state_since ? [' since ', time(monitor.state_since)] : [])]],
      ['Uptime', uptime(monitor)],
      [
        'Current incident',
        monitor.incident ? [time(monitor.incident.started_at), `: ${monitor.incident.cause}`] : 'none',
      ],
      ['Check', `${TYPE_NAMES[monitor.type] ?? monitor.type} check of ${monitor.target}`],
      ['Every', plural(monitor.interval_seconds, 'second')],
      ['From', from],
      ['Tells', notify.length ? notify.join(', ') : 'nobody'],
    ]),
  );
}

/** Fills `section` with one monitor's detail; resolves false when the monitor could not be read. */
export async function showDetail(section, id) {
  const base = `/api/v1/monitors/${encodeURIComponent(id)}`;
  const [monitor, runs, incidents, deliveries] = await Promise.all(
    ['', '/runs?limit=100', '/incidents', '/deliveries'].map((path) => send('GET', `${base}${path}`)),
  );
  const title = h('h2', { id: 'monitor-detail-title', tabindex: -1 }, monitor.ok ? monitor.body.name : 'Monitor');
  const close = h('button', { type: 'button', class: 'secondary', id: 'monitor-detail-close' }, 'Close');
  const head = h('div', { class: 'detail-head' }, title, close);
  const failed = [monitor, runs, incidents, deliveries].find((answer) => !answer.ok);
  if (failed) {
    section.replaceChildren(head, errorAlert(failureText(failed)));
  } else {
    section.replaceChildren(
      head,
      h(
        'div',
        { class: 'detail' },
        factsCard(monitor.body),
        runsCard(runs.body.runs),
        incidentsCard(incidents.body.incidents),
        deliveriesCard(deliveries.body.deliveries),
      ),
    );
  }
  section.hidden = false;
  title.focus();
  return !failed;
}
