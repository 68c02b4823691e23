// The monitor form of the dashboard (rendered by monitors-page.ts from the API's schemas): the chosen
// type's fields in use, filled from a monitor or a check, read as the API's body.
import { selector } from './mesh-tool.js';
import { h } from './tool.js';

const el = (id) => document.getElementById(id);
const form = el('monitor-form');

export const typeFieldset = (type) => form.querySelector(`fieldset.monitor-type[data-type="${type}"]`);

/** Shows the chosen type's fields (others hidden and disabled: not read), and each field used only with another's value. */
export function applyType() {
  for (const fieldset of form.querySelectorAll('fieldset.monitor-type')) {
    const active = fieldset.dataset.type === el('monitor-type').value;
    fieldset.hidden = fieldset.disabled = !active;
    for (const field of fieldset.querySelectorAll('[data-only-with]')) {
      const other = fieldset.querySelector(`[name="${field.dataset.onlyWith}"]`);
      field.hidden = other?.value !== field.dataset.onlyValue;
      for (const control of field.querySelectorAll('input, select')) control.disabled = field.hidden;
    }
  }
  const probes = el('tool-probes');
  probes.closest('.field').hidden = probes.disabled = !el('tool-from').selectedOptions.length;
}

function setControl(control, value) {
  if (control instanceof HTMLSelectElement && ![...control.options].some((option) => option.value === value)) {
    control.append(h('option', {}, value));
  }
  control.value = value;
}

/** Fills the form: a monitor to edit, or a check to start from (type, target, options, from values). */
export function fillForm({
  name = '',
  type,
  target = '',
  options = {},
  interval_seconds,
  from = [],
  probes = 1,
  conditions,
  notify,
  paused = false,
}) {
  form.reset();
  el('monitor-name').value = name;
  if (typeFieldset(type)) el('monitor-type').value = type;
  const fieldset = typeFieldset(el('monitor-type').value);
  for (const control of fieldset.querySelectorAll('[data-api-name]')) {
    const isTarget = control.closest('[data-target]') !== null;
    const value = isTarget ? target : options[control.dataset.apiName];
    if (value !== undefined && value !== '') setControl(control, String(value));
  }
  // A check's parameter that a condition stands for (body_contains) becomes that condition.
  for (const control of conditions ? [] : fieldset.querySelectorAll('[data-option]')) {
    if (options[control.dataset.option]) control.value = options[control.dataset.option];
  }
  // A monitor's own conditions replace the form's, which are the API's defaults for a new one.
  for (const control of conditions ? fieldset.querySelectorAll('[data-condition]') : []) {
    const value = conditions[control.dataset.condition];
    if (control.type === 'checkbox') control.checked = value === true;
    else control.value = value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value);
  }
  if (interval_seconds !== undefined) el('monitor-interval').value = String(interval_seconds);
  // The nodes listed once the choice was opened stay; a value they lack is added.
  const select = el('tool-from');
  for (const option of select.options) option.selected = from.includes(option.value);
  const listed = new Set([...select.options].map((option) => option.value));
  select.append(
    ...from.filter((value) => !listed.has(value)).map((value) => h('option', { value, selected: true }, value)),
  );
  form.querySelector('details.from-choice').open = from.length > 0;
  el('tool-probes').value = String(probes);
  el('monitor-webhooks').value = (notify?.webhooks ?? []).join('\n');
  el('monitor-emails').value = (notify?.emails ?? []).join('\n');
  el('monitor-paused').checked = paused;
  applyType();
}

/** A monitor's `from` as the form's values (`country:DE`) and the largest `limit` as the probe count. */
export function fromValues(places) {
  const values = places.map((place) => {
    const [kind, value] = Object.entries(place).find(([key]) => key !== 'limit') ?? ['node', ''];
    return `${kind}:${value}`;
  });
  return { from: values, probes: Math.max(1, ...places.map((place) => place.limit ?? 1)) };
}

const lines = (text) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The form as the API's body: the chosen type's fields only, conditions left empty left out. */
export function readForm() {
  const type = el('monitor-type').value;
  const fieldset = typeFieldset(type);
  let target = '';
  const options = {};
  for (const control of fieldset.querySelectorAll('[data-api-name]')) {
    const value = control.value.trim();
    if (control.closest('[data-target]')) target = value;
    else if (value !== '' && !control.disabled) options[control.dataset.apiName] = value;
  }
  const conditions = {};
  for (const control of fieldset.querySelectorAll('[data-condition]')) {
    const kind = control.dataset.kind;
    if (kind === 'flag') {
      if (control.checked) conditions[control.dataset.condition] = true;
    } else if (control.value.trim() !== '') {
      const value = control.value.trim();
      conditions[control.dataset.condition] =
        kind === 'number' ? Number(value) : kind === 'list' ? lines(value).map(Number) : value;
    }
  }
  const from = [...el('tool-from').selectedOptions].map((option) => option.value);
  const probes = Math.max(1, Number(el('tool-probes').value) || 1);
  return {
    name: el('monitor-name').value.trim(),
    type,
    target,
    options,
    interval_seconds: Number(el('monitor-interval').value),
    from: from.map((value) => selector(value, probes)),
    conditions,
    notify: { webhooks: lines(el('monitor-webhooks').value), emails: lines(el('monitor-emails').value) },
    paused: el('monitor-paused').checked,
  };
}
