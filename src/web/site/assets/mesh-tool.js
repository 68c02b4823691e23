// A tool page run from other nodes (its "From" choice): POSTs a measurement to the public API, reads
// its events with EventSource and shows the probes side by side. The views are in mesh-views.js.
import { hopsView, pingView, resultsView } from './mesh-views.js';
import {
  apiErrorText,
  card,
  codeBlock,
  errorAlert,
  getJson,
  h,
  plural,
  rawJson,
  say,
  shellQuote,
  updateRawJson,
} from './tool.js';

/** Each type's target: the route's main parameter (the API's `target`). */
const TARGETS = { ping: 'host', traceroute: 'host', mtr: 'host', dns: 'host', http: 'url', ssl: 'host' };

/** A "from" value (`node:x`, `country:DE`, `asn:3320`...) as a selector; `probes` caps each place (a node is one). */
export function selector(value, probes) {
  const at = value.indexOf(':');
  const kind = value.slice(0, at);
  const name = value.slice(at + 1);
  const chosen = { [kind]: kind === 'asn' ? Number(name) : name };
  return kind === 'node' || probes <= 1 ? chosen : { ...chosen, limit: probes };
}

/** The measurement's body: the single-node call's parameters split into target and options. */
export function measurementBody(type, apiPath, from, probes) {
  const parameters = new URLSearchParams(apiPath.slice(apiPath.indexOf('?') + 1));
  const target = parameters.get(TARGETS[type]) ?? '';
  parameters.delete(TARGETS[type]);
  return {
    type,
    target,
    options: Object.fromEntries(parameters),
    locations: from.map((value) => selector(value, probes)),
  };
}

/** The two calls behind the page, as curl commands, and what they answered. */
function apiCallsCard(body, id, answer) {
  const post = `curl -X POST -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(body))} ${shellQuote(`${location.origin}/api/v1/measurements`)}`;
  const events = id ? `curl -N ${shellQuote(`${location.origin}/api/v1/measurements/${id}/events`)}` : null;
  return card(
    'The API calls',
    h('p', {}, 'The same measurement from a terminal: create it, then read its events as they arrive (-N).'),
    codeBlock(post, 'the curl command that creates the measurement'),
    events ? codeBlock(events, 'the curl command that reads its events') : null,
    rawJson(id ? 'Raw JSON events' : 'Raw JSON', answer),
  );
}

const VIEWS = {
  ping: pingView,
  traceroute: hopsView,
  mtr: hopsView,
  dns: resultsView,
  http: resultsView,
  ssl: resultsView,
};

/** The choice's groups from the node list: each node, and each country, continent and tag they have. */
function choiceGroups(nodes) {
  const distinct = (values) => [...new Set(values.filter(Boolean))].sort();
  const group = (label, kind, values) => ({
    label,
    options: distinct(values).map((value) => [`${kind}:${value}`, value]),
  });
  const place = (node) => [node.location.city, node.location.country].filter(Boolean).join(', ');
  return [
    {
      label: 'Nodes',
      options: nodes.map((node) => [`node:${node.name}`, place(node) ? `${node.name} (${place(node)})` : node.name]),
    },
    group(
      'Countries',
      'country',
      nodes.map((node) => node.location.country),
    ),
    group(
      'Continents',
      'continent',
      nodes.map((node) => node.location.continent),
    ),
    group(
      'Tags',
      'tag',
      nodes.flatMap((node) => node.tags),
    ),
  ];
}

/** Lists the live nodes in the "from" choice once it is opened (a page view alone asks nothing). */
export function wireFromChoice() {
  const details = document.querySelector('details.from-choice');
  const select = document.getElementById('tool-from');
  if (!details || !select) return;
  let asked = false;
  const fill = async () => {
    if (asked || !details.open) return;
    asked = true;
    const answer = await getJson('/api/v1/nodes');
    if (!answer.ok) {
      details.append(errorAlert(`The nodes could not be listed: ${apiErrorText(answer.status, answer.body)}`));
      return;
    }
    const chosen = [...select.selectedOptions].map((option) => option.value);
    const groups = choiceGroups(answer.body.nodes);
    const known = new Set(groups.flatMap((group) => group.options.map(([value]) => value)));
    groups.push({
      label: 'From the URL',
      options: chosen.filter((value) => !known.has(value)).map((value) => [value, value]),
    });
    select.replaceChildren(
      ...groups
        .filter((group) => group.options.length > 0)
        .map((group) =>
          h(
            'optgroup',
            { label: group.label },
            ...group.options.map(([value, label]) => h('option', { value, selected: chosen.includes(value) }, label)),
          ),
        ),
    );
  };
  details.addEventListener('toggle', fill);
  fill();
}

/** The run startTool calls when the page has a "from" choice: one measurement, shown as it goes. */
export function meshRunner(type) {
  wireFromChoice();
  return async ({ form, apiPath, result, status, signal, from, probes }) => {
    const body = measurementBody(type, apiPath, from, probes);
    say(status, 'Creating the measurement…', true);
    const response = await fetch('/api/v1/measurements', {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => null);
    if (signal.aborted) return;
    if (response.status !== 202) {
      result.replaceChildren(errorAlert(apiErrorText(response.status, answer)), apiCallsCard(body, null, answer));
      say(status, '');
      return;
    }
    const events = [];
    const view = VIEWS[type](type, answer.probes, form.querySelector('[data-map]')?.dataset.map);
    const calls = apiCallsCard(body, answer.id, events);
    result.replaceChildren(...view.parts, calls);
    say(status, `Measuring from ${plural(answer.probes.length, 'node')}…`, true);
    await new Promise((resolve) => {
      const source = new EventSource(`/api/v1/measurements/${answer.id}/events`);
      const stop = () => {
        source.close();
        resolve();
      };
      signal.addEventListener('abort', stop);
      source.onmessage = (message) => {
        const event = JSON.parse(message.data);
        events.push(event);
        updateRawJson(calls, events);
        if (event.type === 'measurement_done') {
          // Closed here: a reconnect would only be told (204) that nothing more comes.
          stop();
          view.finish();
          say(status, `Done: ${plural(answer.probes.length, 'node')} measured.`);
        } else view.add(event);
      };
      source.onerror = () => {
        if (source.readyState !== EventSource.CLOSED) return;
        result.prepend(errorAlert('The measurement’s event stream closed before every node finished.'));
        say(status, '');
        stop();
      };
    });
  };
}
