import { escapeHtml as e } from './html.ts';
import type { ToolDefinition } from './tool-definitions.ts';
import type { ToolField, ToolPage } from './tool-fields.ts';

export function fieldValue(field: ToolField, query: Record<string, unknown>): string {
  const given = query[field.name];
  const value = typeof given === 'string' ? given.trim() : '';
  return value === '' ? (field.defaultValue ?? '') : value;
}

/** A field `onlyWith` another's value is out of use (hidden, not sent) while that value is not chosen. */
export function isActive(tool: ToolPage, field: ToolField, query: Record<string, unknown>): boolean {
  if (!field.onlyWith) return true;
  const { field: name, value } = field.onlyWith;
  const other = tool.fields.find((candidate) => candidate.name === name);
  return other !== undefined && fieldValue(other, query) === value;
}

/** The API call a page with this URL makes (what the browser's script fetches, and the no-script link). */
export function apiPathFor(tool: ToolPage, query: Record<string, unknown>): string {
  const parameters = new URLSearchParams();
  for (const field of tool.fields) {
    if (!isActive(tool, field, query)) continue;
    const value = fieldValue(field, query);
    if (value !== '') parameters.set(field.api, value);
  }
  return `${tool.api}?${parameters}`;
}

/** Whether the URL holds every required value, so the page runs the tool as it opens. */
export function isComplete(tool: ToolPage, query: Record<string, unknown>): boolean {
  return tool.fields.every((field) => !field.required || fieldValue(field, query) !== '');
}

function selectOption(field: ToolField, option: string, value: string): string {
  const selected = option === value ? ' selected' : '';
  const label = field.optionLabels?.[option];
  return label === undefined
    ? `<option${selected}>${e(option)}</option>`
    : `<option value="${e(option)}"${selected}>${e(label)}</option>`;
}

/** A field's control; the monitor form (web/monitors-page.ts) gives its own id. */
export function control(field: ToolField, value: string, active: boolean, id = `tool-${field.name}`): string {
  const common = `id="${id}" name="${e(field.name)}" data-api-name="${e(field.api)}" data-default="${e(field.defaultValue ?? '')}"${field.required ? ' required' : ''}${active ? '' : ' disabled'}${field.hint ? ` aria-describedby="${id}-hint"` : ''}`;
  if (field.kind === 'select') {
    const options = field.options ?? [];
    // A value the list does not hold (a hand-edited URL) stays selected, so the API's 400 says why.
    const all = options.includes(value) || value === '' ? options : [...options, value];
    return `<select ${common}>${all.map((option) => selectOption(field, option, value)).join('')}</select>`;
  }
  if (field.kind === 'number') {
    return `<input ${common} type="number" inputmode="numeric" min="${field.min}" max="${field.max}" value="${e(value)}">`;
  }
  return `<input ${common} type="text" value="${e(value)}" placeholder="${e(field.placeholder ?? '')}" autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="300">`;
}

// tool.js shows it, with the check just run in its link, when the check has run.
const MONITOR_THIS = `
<p id="monitor-this" class="monitor-this" hidden><a href="/dashboard#monitors">Monitor this</a>: run this check on a schedule and be told when it fails (in the dashboard, once signed in).</p>`;

/**
 * A tool's page: a GET form whose state is the URL (with JavaScript off, submitting reloads the page
 * with the parameters), and the places the page's module fills with the API's answer.
 */
export function renderToolPage(
  tool: ToolPage,
  query: Record<string, unknown>,
  from: { fields: string; hint: string } | null = null,
): string {
  const fields = tool.fields
    .map((field) => {
      const active = isActive(tool, field, query);
      // tool.js shows and enables the field when the other field takes the value (the server, from the URL).
      const only = field.onlyWith
        ? ` data-only-with="${e(field.onlyWith.field)}" data-only-value="${e(field.onlyWith.value)}"${active ? '' : ' hidden'}`
        : '';
      return `<div class="field${field.narrow ? ' narrow' : ''}"${only}><label for="tool-${field.name}">${e(field.label)}</label>${control(field, fieldValue(field, query), active)}</div>`;
    })
    .join('\n');
  // Under the form, not in its row: a hint inside a field would push the row's controls out of line.
  const hints = tool.fields
    .filter((field) => field.hint)
    .map((field) => `<p class="hint" id="tool-${field.name}-hint">${e(field.hint ?? '')}</p>`)
    .join('');
  const complete = isComplete(tool, query);
  const apiPath = apiPathFor(tool, query);
  const noScript = complete
    ? `<noscript><p class="alert warn">This page shows results with JavaScript. Without it, the API's answer is at <a href="${e(apiPath)}">${e(apiPath)}</a>.</p></noscript>`
    : '';
  return `<h1>${e(tool.heading)}</h1>
<p class="lead">${e(tool.summary)}</p>
<section class="card" aria-label="${e(tool.heading)} form">
<form class="tool" method="get" action="${e(tool.path)}" data-tool="${e(tool.key)}" data-api="${e(tool.api)}" data-heading="${e(tool.heading)}">
${fields}${from ? `\n${from.fields}` : ''}
<div class="actions"><button type="submit">${e(tool.submit)}</button></div>
</form>
${hints}${from?.hint ?? ''}${noScript}
</section>
<p id="tool-status" class="status" role="status" aria-live="polite"></p>${tool.monitor ? MONITOR_THIS : ''}
<div id="tool-result" class="tool-result${complete ? ' reserved' : ''}"></div>`;
}

export function toolTitle(tool: ToolPage, query: Record<string, unknown>): string {
  const subject = isComplete(tool, query)
    ? tool.fields
        .filter((field) => isActive(tool, field, query))
        .map((field) => fieldValue(field, query))
        .filter((value) => value !== '')
        .join(' ')
        .slice(0, 100)
    : '';
  return `${tool.heading}${subject ? `: ${subject}` : ''} · netinfo`;
}

export function renderToolList(tools: readonly Pick<ToolDefinition, 'path' | 'heading' | 'summary'>[]): string {
  const items = tools
    .map(
      (tool) =>
        `<li><a href="${e(tool.path)}"><strong>${e(tool.heading)}</strong><span>${e(tool.summary)}</span></a></li>`,
    )
    .join('\n');
  return `<h1>Network tools</h1>
<p class="lead">Each tool is a page over one endpoint of this instance's public API: the page shows the answer as tables and charts, and the API call that produced it.</p>
<ul class="tool-list">
${items}
</ul>`;
}
