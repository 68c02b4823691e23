// The tool pages. The form's state is the URL: submitting pushes the parameters into the address bar
// and runs the tool, opening a URL with parameters runs it at once, Back and Forward rerun it. Each
// page's own module imports these helpers; this module only provides them.

/** An element with attributes (`class`, `data-*`, ...) and children (strings become text, null is skipped). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) element.setAttribute(name, String(value));
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

/**
 * A table in its scrolling wrapper: long values wrap or scroll inside it, never widen the page. On
 * a narrow screen each row stacks, every cell under its heading (`data-label`, see site.css);
 * a row added later gets its labels from labelCells.
 */
export function table(caption, headings, rows, attributes = {}) {
  const head = h('tr', {}, ...headings.map((heading) => headingCell(heading)));
  for (const row of rows) labelCells(row, headings);
  attributes = { ...attributes, class: `stack${attributes.class ? ` ${attributes.class}` : ''}` };
  // Focusable and named, so a keyboard user can scroll a table wider than the screen.
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      attributes,
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, head),
      h('tbody', {}, ...rows),
    ),
  );
}

/** Names each cell of a row by its column's heading (a cell spanning columns takes the first), unless named already. */
export function labelCells(row, headings) {
  let column = 0;
  for (const cell of row.children) {
    const heading = headings[column];
    if (heading !== undefined && !cell.hasAttribute('data-label')) {
      cell.setAttribute('data-label', typeof heading === 'string' ? heading : heading.text);
    }
    column += cell.colSpan || 1;
  }
  return row;
}

function headingCell(heading) {
  return typeof heading === 'string'
    ? h('th', { scope: 'col' }, heading)
    : h('th', { scope: 'col', class: heading.class }, heading.text);
}

export const unknown = (text = 'unknown') => h('span', { class: 'unknown' }, text);

export function card(title, ...children) {
  const id = `card-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A definition list of facts; an empty value reads "unknown", as the API gives no value. */
export function facts(entries) {
  return h(
    'dl',
    { class: 'facts' },
    ...entries.flatMap(([term, value]) => [
      h('dt', {}, term),
      h('dd', {}, value === null || value === undefined || value === '' ? unknown() : value),
    ]),
  );
}

/** A string as one shell word: 'it'\''s'. */
export function shellQuote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A command with its copy button (site.js handles every [data-copy] button, also those added later). */
export function codeBlock(command, label) {
  return h(
    'div',
    { class: 'code' },
    h('button', { type: 'button', class: 'copy', 'data-copy': command, 'aria-label': `Copy ${label}` }, 'Copy'),
    h('pre', {}, h('code', {}, command)),
  );
}

export function rawJson(summary, value) {
  return h(
    'details',
    {},
    h('summary', {}, summary),
    h('pre', { class: 'raw', tabindex: 0 }, JSON.stringify(value, null, 2)),
  );
}

/** The call behind the result: the curl command for it and what it answered. */
export function apiCallCard(path, answer, { stream = false } = {}) {
  const command = `curl ${stream ? '-N ' : ''}${shellQuote(`${location.origin}${path}`)}`;
  return card(
    'The API call',
    h(
      'p',
      {},
      stream
        ? 'The same stream from a terminal (-N prints each event as it arrives):'
        : 'The same answer from a terminal:',
    ),
    codeBlock(command, 'the curl command'),
    rawJson(stream ? 'Raw JSON events' : 'Raw JSON', answer),
  );
}

/** Shows the answer so far in an API call card (a stream's events grow; an open <details> stays open). */
export function updateRawJson(apiCard, answer) {
  const raw = apiCard.querySelector('pre.raw');
  if (raw) raw.textContent = JSON.stringify(answer, null, 2);
}

export const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** When a rate limit resets, in words: "at 14:05 (in 12 minutes)". */
export function resetInWords(reset) {
  const at = new Date(reset * 1000);
  const minutes = Math.ceil((at.getTime() - Date.now()) / 60_000);
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return minutes <= 1 ? `at ${time} (within a minute)` : `at ${time} (in ${plural(minutes, 'minute')})`;
}

/** An API error in words: its own message, and what the status means for the visitor. */
export function apiErrorText(status, body) {
  const message = typeof body?.error === 'string' ? body.error : '';
  if (status === 429) {
    // The API's message says when, once; a body without one gets the time in words here.
    if (message) return `Too many requests: ${message}`;
    const when = typeof body?.reset === 'number' ? ` You can try again ${resetInWords(body.reset)}.` : '';
    return `Too many requests: the rate limit is reached.${when}`;
  }
  if (status === 400) return `The API cannot use this input: ${message || 'a parameter is missing or invalid.'}`;
  if (status === 502) return `The lookup failed upstream: ${message || 'a server this service asked did not answer.'}`;
  if (status === 401) return `The API refused the request: ${message || 'the key is invalid or revoked.'}`;
  return `The API answered ${status}${message ? `: ${message}` : '.'}`;
}

export function errorAlert(text) {
  return h('p', { class: 'alert error', role: 'alert' }, text);
}

export function networkErrorText(error) {
  return `This service could not be reached (${error instanceof Error ? error.message : String(error)}). Check the connection and try again.`;
}

/**
 * Says how a run goes in the page's status line (role=status: screen readers announce it). Shown
 * while busy; a final summary is for screen readers only, as the result itself shows it.
 */
export function say(status, text, busy = false) {
  status.textContent = text;
  status.classList.toggle('visually-hidden', !busy);
}

/** The page's form, its parameters and the API path they make; "from" places and probes are the page's only. */
export function readForm(form) {
  const page = new URLSearchParams();
  const api = new URLSearchParams();
  for (const control of form.querySelectorAll('[name][data-api-name]')) {
    const value = control.value.trim();
    // A field not in use (a port while the protocol is not TCP) is disabled: neither in the URL nor sent.
    if (value === '' || control.disabled) continue;
    page.set(control.name, value);
    api.set(control.dataset.apiName, value);
  }
  const from = [...(form.elements.namedItem('from')?.selectedOptions ?? [])].map((option) => option.value);
  const count = form.elements.namedItem('probes');
  const probes = count && !count.disabled ? Math.max(1, Number(count.value) || 1) : 1;
  for (const value of from) page.append('from', value);
  if (from.length > 0 && probes > 1) page.set('probes', String(probes));
  return { page, apiPath: `${form.dataset.api}?${api}`, from, probes };
}

/** Sets the controls from a URL's parameters (Back and Forward). */
function fillForm(form, parameters) {
  for (const control of form.querySelectorAll('[name][data-api-name]')) {
    const value = parameters.get(control.name)?.trim() || control.dataset.default || '';
    if (
      control instanceof HTMLSelectElement &&
      value &&
      ![...control.options].some((option) => option.value === value)
    ) {
      control.append(h('option', {}, value));
    }
    control.value = value;
  }
  const from = form.elements.namedItem('from');
  if (from) {
    const chosen = parameters.getAll('from');
    for (const option of from.options) option.selected = chosen.includes(option.value);
    form.elements.namedItem('probes').value = parameters.get('probes') || '1';
  }
  applyConditions(form);
}

/** Shows and enables each field used only with another's value (data-only-with, probes with places), hides and disables it otherwise. */
function applyConditions(form) {
  const probes = form.elements.namedItem('probes');
  if (probes)
    probes.closest('.field').hidden = probes.disabled = !form.elements.namedItem('from').selectedOptions.length;
  for (const field of form.querySelectorAll('[data-only-with]')) {
    const other = form.elements.namedItem(field.dataset.onlyWith);
    const active = other?.value === field.dataset.onlyValue;
    field.hidden = !active;
    for (const control of field.querySelectorAll('input, select')) control.disabled = !active;
  }
}

function isComplete(form) {
  return [...form.querySelectorAll('[name][data-api-name]')].every(
    (control) => !control.required || control.value.trim() !== '',
  );
}

/** "Monitor this" once a check ran (`apiPath` null hides it): the dashboard's form, filled with this check. */
function offerMonitor(apiPath, from = [], probes = 1) {
  const offer = document.getElementById('monitor-this');
  if (!offer) return;
  offer.hidden = apiPath === null;
  const query = new URLSearchParams({ monitor: apiPath ?? '' });
  for (const value of from) query.append('from', value);
  if (from.length > 0 && probes > 1) query.set('probes', String(probes));
  offer.querySelector('a').href = `/dashboard?${query}#monitors`;
}

/**
 * Wires a tool page: `run({ form, apiPath, result, status, signal })` shows one run; a new run (or
 * leaving by Back) aborts the one before. With places chosen in its "from" choice, `mesh` runs
 * instead (given `from` and `probes` too).
 */
export function startTool(run, mesh) {
  const form = document.querySelector('form.tool[data-tool]');
  const result = document.getElementById('tool-result');
  const status = document.getElementById('tool-status');
  if (!form || !result || !status) return;
  let controller = null;
  applyConditions(form);
  form.addEventListener('change', () => applyConditions(form));
  const go = () => {
    controller?.abort();
    controller = new AbortController();
    const { signal } = controller;
    result.replaceChildren();
    say(status, '');
    offerMonitor(null);
    if (!isComplete(form)) {
      document.title = `${form.dataset.heading} · netinfo`;
      return;
    }
    const { page, apiPath, from, probes } = readForm(form);
    document.title = `${form.dataset.heading}: ${[...page.values()].join(' ').slice(0, 100)} · netinfo`;
    const chosen = from.length > 0 && mesh ? mesh : run;
    chosen({ form, apiPath, result, status, signal, from, probes }).then(
      () => signal.aborted || offerMonitor(apiPath, from, probes),
      (error) => {
        // This run's own signal: an earlier run, aborted by a newer one, must not speak over it.
        if (signal.aborted) return;
        say(status, '');
        // Above what the run showed so far (a stream's results stay).
        result.prepend(errorAlert(networkErrorText(error)));
      },
    );
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const url = `${location.pathname}?${readForm(form).page}`;
    if (url !== `${location.pathname}${location.search}`) history.pushState(null, '', url);
    go();
  });
  addEventListener('popstate', () => {
    fillForm(form, new URLSearchParams(location.search));
    go();
  });
  go();
}

/** GET an API path as JSON: `{ status, ok, body }`; a body that is not JSON is null. */
export async function getJson(path, signal) {
  const response = await fetch(path, { signal, headers: { accept: 'application/json' } });
  const body = await response.json().catch(() => null);
  return { status: response.status, ok: response.ok, body };
}
