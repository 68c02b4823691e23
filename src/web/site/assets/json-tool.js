// What the tools that answer with one JSON document share: dates, durations, and running the page.
import { apiCallCard, apiErrorText, errorAlert, getJson, h, say, startTool } from './tool.js';

/** A date of the API (`YYYY-MM-DD` or ISO 8601) as written, without the time when it is midnight UTC. */
export function shortDate(value) {
  if (!value) return null;
  return value
    .replace(/T00:00:00(\.000)?Z$/, '')
    .replace('T', ' ')
    .replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** Seconds in words for a TTL: 3600 -> "1 h", 90 -> "1 min 30 s". */
export function duration(seconds) {
  const units = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const parts = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ') || '0 s';
}

/** A check's problems as a list (nothing when there are none). */
export function problemList(problems) {
  return problems.length
    ? h('ul', { class: 'problems', 'aria-label': 'Problems' }, ...problems.map((problem) => h('li', {}, problem)))
    : null;
}

export const mono = (text) => (text ? h('span', { class: 'mono' }, text) : null);

/** Runs a JSON tool's page: `render` turns the API's answer into cards and the status line; `mesh` as startTool's. */
export function startJsonTool(render, mesh) {
  startTool(async ({ apiPath, result, status, signal }) => {
    // The space the answer will take, kept once it shows (see .tool-result.reserved in tools.css).
    result.classList.add('reserved');
    say(status, 'Asking the API…', true);
    const answer = await getJson(apiPath, signal);
    if (signal.aborted) return;
    if (answer.ok) {
      const shown = render(answer.body);
      result.replaceChildren(...shown.parts, apiCallCard(apiPath, answer.body));
      say(status, shown.status);
    } else {
      const text = apiErrorText(answer.status, answer.body);
      result.replaceChildren(errorAlert(text), apiCallCard(apiPath, answer.body));
      say(status, '');
    }
  }, mesh);
}
