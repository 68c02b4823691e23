// The dashboard's monitors: lists them, creates and edits them with the form the server rendered from
// the API's schemas (monitors-page.ts), pauses, resumes and deletes them, and opens one's detail.
// `/dashboard?monitor=<a check's API path>&from=…#monitors` (a tool page's "Monitor this") opens the
// form filled with that check.
import { wireFromChoice } from './mesh-tool.js';
import { failureText, send, showDetail, stateBadge, TYPE_NAMES, time, uptime } from './monitor-detail.js';
import { applyType, fillForm, fromValues, readForm, typeFieldset } from './monitor-form.js';
import { h, labelCells, table, unknown } from './tool.js';

const API = '/api/v1/monitors';
const el = (id) => document.getElementById(id);
const list = el('monitor-list');
const form = el('monitor-form');
const editor = el('monitor-editor');
const detail = el('monitor-detail');
const status = el('monitor-status');
const formError = el('monitor-error');
let editing = null;
let refreshTimer = 0;

const announce = (text) => {
  status.textContent = text;
};

function openEditor(monitor, prefill) {
  editing = monitor?.id ?? null;
  fillForm(monitor ? { ...monitor, ...fromValues(monitor.from) } : prefill);
  el('monitor-form-title').textContent = monitor ? `Edit “${monitor.name}”` : 'New monitor';
  el('monitor-submit').textContent = monitor ? 'Save changes' : 'Create monitor';
  el('monitor-secret').hidden = true;
  formError.textContent = '';
  form.hidden = false;
  editor.hidden = false;
  el('monitor-form-title').focus();
}

/** The check a tool page sent is used (or dropped): a reload no longer opens the form with it. */
function forgetPrefill() {
  if (new URLSearchParams(location.search).has('monitor')) history.replaceState(null, '', '/dashboard#monitors');
}

function closeEditor() {
  forgetPrefill();
  editor.hidden = true;
  editing = null;
  el('monitors-title').focus();
}

function actionButton(text, action, monitor) {
  return h(
    'button',
    {
      type: 'button',
      class: action === 'delete' ? 'danger' : 'secondary',
      'data-action': action,
      'data-id': monitor.id,
      'aria-label': `${text} ${monitor.name}`,
    },
    text,
  );
}

const HEADINGS = ['Name', 'Check', 'State', 'Uptime', 'Last run', 'Actions'];

function monitorRow(monitor) {
  const last = monitor.last_run;
  return labelCells(
    h(
      'tr',
      { 'data-monitor-id': monitor.id },
      h(
        'td',
        {},
        h('button', { type: 'button', class: 'link', 'data-action': 'open', 'data-id': monitor.id }, monitor.name),
      ),
      h('td', {}, `${TYPE_NAMES[monitor.type] ?? monitor.type} `, h('span', { class: 'mono' }, monitor.target)),
      h('td', {}, stateBadge(monitor)),
      h('td', {}, ...uptime(monitor)),
      h(
        'td',
        {},
        last
          ? [time(last.started_at), last.response_ms === null ? '' : `, ${Math.round(last.response_ms)} ms`]
          : unknown('not yet'),
      ),
      h(
        'td',
        { class: 'row-actions' },
        actionButton('Edit', 'edit', monitor),
        actionButton(monitor.paused ? 'Resume' : 'Pause', monitor.paused ? 'resume' : 'pause', monitor),
        actionButton('Delete', 'delete', monitor),
      ),
    ),
    HEADINGS,
  );
}

const monitors = new Map();

/** Lists the monitors; again in 60 s, or in 5 s while one waits for its first run. */
async function refresh() {
  clearTimeout(refreshTimer);
  const answer = await send('GET', API);
  list.removeAttribute('aria-busy');
  if (!answer.ok) {
    list.replaceChildren(h('p', { class: 'form-error' }, failureText(answer)));
    return;
  }
  monitors.clear();
  for (const monitor of answer.body.monitors) monitors.set(monitor.id, monitor);
  list.replaceChildren(
    monitors.size === 0
      ? h('p', {}, 'No monitors yet. Create one, or use “Monitor this” under a check on a tool page.')
      : table('Your monitors', HEADINGS, answer.body.monitors.map(monitorRow), { class: 'monitor-table' }),
  );
  const waiting = answer.body.monitors.some((monitor) => !monitor.paused && monitor.state === null);
  refreshTimer = setTimeout(refresh, waiting ? 5_000 : 60_000);
}

async function act(action, monitor) {
  if (action === 'open') {
    detail.dataset.id = monitor.id;
    await showDetail(detail, monitor.id);
    return;
  }
  if (action === 'edit') {
    openEditor(monitor);
    return;
  }
  if (
    action === 'delete' &&
    !window.confirm(`Delete the monitor “${monitor.name}” and its history? This cannot be undone.`)
  )
    return;
  const answer =
    action === 'delete'
      ? await send('DELETE', `${API}/${encodeURIComponent(monitor.id)}`)
      : await send('PATCH', `${API}/${encodeURIComponent(monitor.id)}`, { paused: action === 'pause' });
  if (!answer.ok && !(action === 'delete' && answer.status === 404)) {
    announce(failureText(answer));
    return;
  }
  const done = { delete: 'deleted', pause: 'paused', resume: 'resumed' }[action];
  announce(`Monitor “${monitor.name}” ${done}.`);
  if (action === 'delete' && detail.dataset.id === monitor.id) detail.hidden = true;
  await refresh();
  el('monitors-title').focus();
}

list.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action]');
  const monitor = button && monitors.get(button.dataset.id);
  if (monitor) act(button.dataset.action, monitor);
});

detail.addEventListener('click', (event) => {
  if (event.target.closest('#monitor-detail-close')) {
    detail.hidden = true;
    el('monitors-title').focus();
  }
});

form.addEventListener('change', applyType);
el('new-monitor').addEventListener('click', () => openEditor(null, { type: el('monitor-type').value }));
el('monitor-cancel').addEventListener('click', closeEditor);
el('monitor-secret-done').addEventListener('click', closeEditor);

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  formError.textContent = '';
  if (!form.reportValidity()) return;
  const body = readForm();
  const submit = el('monitor-submit');
  submit.disabled = true;
  const answer = editing
    ? await send('PATCH', `${API}/${encodeURIComponent(editing)}`, body)
    : await send('POST', API, body);
  submit.disabled = false;
  if (!answer.ok) {
    formError.textContent = failureText(answer);
    return;
  }
  forgetPrefill();
  announce(`Monitor “${answer.body.name}” ${editing ? 'saved' : 'created'}.`);
  await refresh();
  if (answer.body.webhook_secret) {
    // Shown this once: the form makes way for the secret until the editor is closed.
    form.hidden = true;
    const panel = el('monitor-secret');
    el('monitor-secret-value').textContent = answer.body.webhook_secret;
    panel.querySelector('button[data-copy]').dataset.copy = answer.body.webhook_secret;
    panel.hidden = false;
    panel.focus();
    return;
  }
  closeEditor();
});

/** "Monitor this" from a tool page: `monitor` is the check's API path; `from` and `probes` its places. */
function prefillFromUrl() {
  const query = new URLSearchParams(location.search);
  const path = query.get('monitor');
  if (!path?.startsWith('/api/v1/')) return;
  const [route, search = ''] = path.split('?');
  const type = route.slice('/api/v1/'.length);
  if (!typeFieldset(type)) return;
  const parameters = new URLSearchParams(search);
  const fieldset = typeFieldset(type);
  const targetName = fieldset.querySelector('[data-target] [data-api-name]').dataset.apiName;
  const target = parameters.get(targetName) ?? '';
  parameters.delete(targetName);
  const options = Object.fromEntries(parameters);
  const name = `${TYPE_NAMES[type]} ${target}`.slice(0, 100);
  openEditor(null, {
    name,
    type,
    target,
    options,
    from: query.getAll('from'),
    probes: Number(query.get('probes')) || 1,
  });
}

wireFromChoice();
applyType();
refresh();
prefillFromUrl();
