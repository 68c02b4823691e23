// The page is rendered by the server; this script sends its forms to the JSON account API (same
// origin, session cookie, X-CSRF-Token) and updates the page in place.

const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? '';

async function api(method, path, body) {
  const headers = { 'X-CSRF-Token': csrfToken };
  const init = { method, headers, credentials: 'same-origin' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return {
      ok: false,
      status: 0,
      data: { error: 'The service could not be reached. Check your connection and try again.' },
    };
  }
  const text = await response.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { error: `Unexpected answer (HTTP ${response.status}).` };
  }
  return { ok: response.ok, status: response.status, data };
}

function showError(element, message) {
  element.textContent = message;
}

function announce(message) {
  const status = document.getElementById('status');
  if (status) status.textContent = message;
}

function utcMinute(iso) {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

function busy(form, isBusy) {
  for (const button of form.querySelectorAll('button')) button.disabled = isBusy;
}

// Log in and sign up: on success the server has set the session cookie; reload to render the account.
for (const form of document.querySelectorAll('form[data-action]')) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const kind = form.dataset.action;
    const error = document.getElementById(`${kind}-error`);
    showError(error, '');
    busy(form, true);
    const result = await api('POST', `/api/v1/account/${kind}`, {
      email: form.elements.email.value,
      password: form.elements.password.value,
    });
    if (result.ok) {
      window.location.assign('/dashboard');
      return;
    }
    busy(form, false);
    showError(error, result.data.error ?? `Failed (HTTP ${result.status}).`);
    form.elements.password.focus();
  });
}

document.getElementById('logout')?.addEventListener('click', async () => {
  await api('POST', '/api/v1/account/logout');
  window.location.assign('/dashboard');
});

const keyRows = document.getElementById('key-rows');
const keyCount = document.getElementById('key-count');

function setKeyCount(delta) {
  if (!keyCount) return;
  const count = Number(keyCount.textContent) + delta;
  keyCount.textContent = String(count);
  const empty = count === 0;
  const none = document.getElementById('no-keys');
  // The page only lists active keys; when this page revoked the last one, it knows there were some.
  if (empty && delta < 0) {
    none.textContent = 'No active keys: the keys you revoked no longer work. Create one above to use a key again.';
  }
  none.hidden = !empty;
  document.getElementById('keys-table').hidden = empty;
}

function cell(row, label, content) {
  const td = document.createElement('td');
  td.dataset.label = label;
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  row.append(td);
}

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function addKeyRow(key) {
  const row = document.createElement('tr');
  row.dataset.keyId = key.id;
  cell(row, 'Name', key.name);
  cell(row, 'Key', element('code', `${key.prefix}…`));
  cell(row, 'Created', element('time', utcMinute(key.created_at), { datetime: key.created_at }));
  cell(row, 'Last used', 'never');
  const revoke = element('button', 'Revoke', {
    type: 'button',
    class: 'danger revoke',
    'data-key-id': key.id,
    'data-key-name': key.name,
    'aria-label': `Revoke key ${key.name}`,
  });
  cell(row, '', revoke);
  keyRows.append(row);
}

const createForm = document.getElementById('create-key-form');
createForm?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = document.getElementById('create-error');
  showError(error, '');
  busy(createForm, true);
  const result = await api('POST', '/api/v1/account/keys', { name: createForm.elements.name.value });
  busy(createForm, false);
  if (!result.ok) {
    showError(error, result.data.error ?? `Failed (HTTP ${result.status}).`);
    createForm.elements.name.focus();
    return;
  }
  const panel = document.getElementById('new-key');
  document.getElementById('new-key-value').textContent = result.data.key;
  for (const example of panel.querySelectorAll('.key-example')) example.textContent = result.data.key;
  document.getElementById('copy-status').textContent = '';
  panel.dataset.keyId = result.data.id;
  panel.hidden = false;
  panel.focus();
  addKeyRow(result.data);
  setKeyCount(1);
  createForm.reset();
});

document.getElementById('copy-key')?.addEventListener('click', async () => {
  const value = document.getElementById('new-key-value');
  const status = document.getElementById('copy-status');
  try {
    await navigator.clipboard.writeText(value.textContent);
    status.textContent = 'Copied to the clipboard.';
  } catch {
    // The clipboard API needs HTTPS (or localhost): select the key so Ctrl+C / Cmd+C copies it.
    const range = document.createRange();
    range.selectNodeContents(value);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    status.textContent = 'Selected: press Ctrl+C (Cmd+C on a Mac) to copy.';
  }
});

keyRows?.addEventListener('click', async (event) => {
  const button = event.target.closest('button.revoke');
  if (!button) return;
  const name = button.dataset.keyName;
  if (!window.confirm(`Revoke the key "${name}"? Programs using it are refused from their next request.`)) return;
  button.disabled = true;
  const result = await api('DELETE', `/api/v1/account/keys/${encodeURIComponent(button.dataset.keyId)}`);
  if (!result.ok && result.status !== 404) {
    button.disabled = false;
    announce(result.data.error ?? `Revoking failed (HTTP ${result.status}).`);
    return;
  }
  button.closest('tr').remove();
  // The key still on show was just revoked: it no longer works, so it is no longer shown.
  const panel = document.getElementById('new-key');
  if (panel.dataset.keyId === button.dataset.keyId) {
    panel.hidden = true;
    document.getElementById('new-key-value').textContent = '';
    for (const example of panel.querySelectorAll('.key-example')) example.textContent = 'nk_…';
  }
  setKeyCount(-1);
  showError(document.getElementById('create-error'), '');
  announce(`Key "${name}" revoked.`);
  document.getElementById('keys-title').focus();
});
