import type { RouteCatalogue } from '../http/route-catalogue.ts';
import { MONITOR_TYPE_NAMES, type MonitorType } from '../monitors/monitor-types.ts';
import { escapeHtml as e } from './site/html.ts';
import { renderFromChoice } from './site/mesh-pages.ts';
import { type ConditionField, monitorConditions, monitorTypes, type TypeConditions } from './site/monitor-types.ts';
import { TOOLS } from './site/tool-definitions.ts';
import { type ToolPage, toolPage } from './site/tool-fields.ts';
import { control, fieldValue } from './site/tool-page.ts';

/** The monitor form's parts that come from the API's schemas: each type's check fields and conditions. */
export interface MonitorFormView {
  readonly types: readonly { readonly tool: ToolPage; readonly conditions: TypeConditions }[];
}

const isMonitorType = (key: string): key is MonitorType => MONITOR_TYPE_NAMES.some((name) => name === key);

/** Null while the API has no monitors (the section is then left out). */
export function monitorFormView(routes: RouteCatalogue): MonitorFormView | null {
  const types = monitorTypes(routes);
  if (types.length === 0) return null;
  return {
    types: TOOLS.flatMap((tool) =>
      isMonitorType(tool.key) && types.includes(tool.key)
        ? [{ tool: toolPage(tool, routes), conditions: monitorConditions(tool.key) }]
        : [],
    ),
  };
}

function conditionControl(type: string, condition: ConditionField): string {
  const id = `monitor-${type}-if-${condition.name}`;
  const hint = condition.hint ? ` aria-describedby="${id}-hint"` : '';
  const option = condition.option ? ` data-option="${e(condition.option)}"` : '';
  const common = `id="${id}" data-condition="${e(condition.name)}" data-kind="${condition.kind}"${option}${hint}`;
  const given = condition.defaultValue ?? '';
  const range = `${condition.min === undefined ? '' : ` min="${condition.min}"`}${condition.max === undefined ? '' : ` max="${condition.max}"`}`;
  const input =
    condition.kind === 'flag'
      ? `<input ${common} type="checkbox"${given === 'true' ? ' checked' : ''}>`
      : condition.kind === 'number'
        ? `<input ${common} type="number" inputmode="decimal" step="any"${range} value="${e(given)}">`
        : `<input ${common} type="text" autocomplete="off" spellcheck="false" value="${e(given)}"${condition.kind === 'list' ? ' placeholder="200, 301"' : ''}>`;
  const hintText = condition.hint ? `<p class="hint" id="${id}-hint">${e(condition.hint)}</p>` : '';
  return condition.kind === 'flag'
    ? `<div class="condition flag">${input}<label for="${id}">${e(condition.label)}</label>${hintText}</div>`
    : `<div class="condition"><label for="${id}">${e(condition.label)}</label>${input}${hintText}</div>`;
}

/** One type's fields: the check's own (its target first, as on its tool page) and its conditions. */
function typeFieldset({ tool, conditions }: MonitorFormView['types'][number]): string {
  const covered = new Set(conditions.fields.map((condition) => condition.option));
  const fields = tool.fields
    .filter((field) => !covered.has(field.api))
    .map((field, index) => {
      const id = `monitor-${tool.key}-${field.api}`;
      const only = field.onlyWith
        ? ` data-only-with="${e(field.onlyWith.field)}" data-only-value="${e(field.onlyWith.value)}" hidden`
        : '';
      const target = index === 0 ? ' data-target' : '';
      const hint = field.hint ? `<p class="hint" id="${id}-hint">${e(field.hint)}</p>` : '';
      return `<div class="field${field.narrow ? ' narrow' : index === 0 ? ' wide' : ''}"${only}${target}><label for="${id}">${e(field.label)}</label>${control(field, fieldValue(field, {}), !field.onlyWith, id)}${hint}</div>`;
    })
    .join('\n');
  return `<fieldset class="monitor-type" data-type="${e(tool.key)}" hidden disabled>
<legend class="visually-hidden">${e(tool.heading)}</legend>
<div class="fields">${fields}</div>
<fieldset class="conditions"><legend>Down when</legend>
<p class="hint always">Any one of these makes it down, as does a check that fails at its target (no connection, no answer).${conditions.always ? ` ${e(conditions.always)}` : ''}</p>
${conditions.fields.map((condition) => conditionControl(tool.key, condition)).join('\n')}
</fieldset>
</fieldset>`;
}

/**
 * The dashboard's monitors: the list, the form that creates and edits one, and one monitor's
 * history, all filled and sent by monitors.js over /api/v1/monitors.
 */
export function renderMonitorsSection(view: MonitorFormView, mapUrl: string): string {
  const typeOptions = view.types.map(({ tool }) => `<option value="${e(tool.key)}">${e(tool.heading)}</option>`);
  return `<section class="card monitors" id="monitors" aria-labelledby="monitors-title">
<h2 id="monitors-title" tabindex="-1">Monitors</h2>
<p class="hint">A monitor runs one check on a schedule, from the nodes you choose. When it goes down or comes back up, it opens or closes an incident and tells your webhooks and e-mail addresses.</p>
<p class="status" id="monitor-status" role="status" aria-live="polite"></p>
<div id="monitor-list" aria-busy="true"><p class="hint">Loading your monitors…</p></div>
<button type="button" id="new-monitor">New monitor</button>
</section>
<section class="card" id="monitor-editor" aria-labelledby="monitor-form-title" hidden>
<h2 id="monitor-form-title" tabindex="-1">New monitor</h2>
<form id="monitor-form" class="tool monitor-form">
<div class="field wide"><label for="monitor-name">Name</label><input id="monitor-name" name="name" type="text" required maxlength="100" autocomplete="off"></div>
<div class="field"><label for="monitor-type">Check</label><select id="monitor-type" name="type">${typeOptions.join('')}</select></div>
${view.types.map(typeFieldset).join('\n')}
<div class="field interval"><label for="monitor-interval">Every (seconds)</label><input id="monitor-interval" name="interval_seconds" type="number" inputmode="numeric" min="1" required value="300" aria-describedby="monitor-interval-hint"><p class="hint" id="monitor-interval-hint">Your plan sets the shortest interval; the API says it when this is shorter.</p></div>
<div class="from">${renderFromChoice({}, mapUrl, 'Run from chosen nodes')}
<p class="hint" id="tool-from-hint">None chosen: any one node. Choose nodes or places (Ctrl or ⌘ for several) to run from each; the count caps the probes of a country, continent or tag.</p></div>
<div class="field wide"><label for="monitor-webhooks">Webhooks</label><textarea id="monitor-webhooks" name="webhooks" rows="2" spellcheck="false" placeholder="https://example.com/hooks/netinfo" aria-describedby="monitor-webhooks-hint"></textarea><p class="hint" id="monitor-webhooks-hint">One URL a line: each is sent a signed JSON POST when the state changes.</p></div>
<div class="field wide"><label for="monitor-emails">E-mail addresses</label><textarea id="monitor-emails" name="emails" rows="2" spellcheck="false" placeholder="ops@example.com" aria-describedby="monitor-emails-hint"></textarea><p class="hint" id="monitor-emails-hint">One address a line: each is sent the same facts in plain text.</p></div>
<div class="field flag"><input id="monitor-paused" name="paused" type="checkbox"><label for="monitor-paused">Paused: it does not run until resumed</label></div>
<p class="form-error" id="monitor-error" role="alert"></p>
<div class="actions"><button type="submit" id="monitor-submit">Create monitor</button><button type="button" class="secondary" id="monitor-cancel">Cancel</button></div>
</form>
<div id="monitor-secret" class="new-key" tabindex="-1" hidden aria-labelledby="monitor-secret-title">
<h3 id="monitor-secret-title">Its webhook secret</h3>
<p class="warning"><strong>Copy it now: it is shown only this once.</strong> Each webhook POST carries <code>X-Netinfo-Signature: t=&lt;unix time&gt;,v1=&lt;hex&gt;</code>, the HMAC-SHA256 of <code>&lt;t&gt;.&lt;body&gt;</code> with this secret as its key: check it to know the POST is ours.</p>
<div class="code"><button type="button" class="copy" data-copy="" aria-label="Copy the webhook secret">Copy</button><pre><code id="monitor-secret-value"></code></pre></div>
<button type="button" id="monitor-secret-done">Done</button>
</div>
</section>
<section class="monitor-detail" id="monitor-detail" aria-labelledby="monitor-detail-title" hidden></section>`;
}
