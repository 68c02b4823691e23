import type { RouteCatalogue } from '../../http/route-catalogue.ts';
import { conditionOptions, MONITOR_CONDITIONS, type MonitorType } from '../../monitors/monitor-types.ts';
import { allowedValues, firstSentence, keyword } from './tool-fields.ts';

export const MONITORS_API = '/api/v1/monitors';

export interface ConditionField {
  readonly name: string;
  readonly label: string;
  /** `flag`: a checkbox sending `true`; `list`: numbers separated by commas, sent as an array. */
  readonly kind: 'flag' | 'number' | 'text' | 'list';
  readonly hint?: string;
  readonly min?: number;
  readonly max?: number;
  /** What the form starts with: the API's value when a monitor is given no conditions. */
  readonly defaultValue?: string;
  /** The check's parameter the condition sets (http `body_missing` is `body_contains`): the form has no control of its own for it. */
  readonly option?: string;
}

/**
 * What the monitor form adds to the API's conditions: their words under the legend "Down when", by
 * type. The schema gives each one's kind and hint.
 */
const CONDITION_LABELS: Readonly<Record<MonitorType, Readonly<Record<string, string>>>> = {
  http: { status_not: 'the status is not one of', total_ms_over: 'it takes over (ms)', body_missing: 'the body lacks' },
  ssl: {
    expires_within_days: 'it expires within (days)',
    invalid: 'it is invalid',
    problems_any: 'it has any problem',
  },
  dns: {
    answer_changed: 'the answer changes',
    missing: 'no record answers',
    rcode_not_noerror: 'the answer is an error',
  },
  blacklist: { listed_any: 'a list has it' },
  mail: { new_problem: 'a new problem appears' },
  ping: { loss_over: 'the loss is over (%)', avg_ms_over: 'the average is over (ms)' },
  mtr: { loss_over_at_any_hop: 'a hop loses over (%)' },
};

function createMonitorBody(routes: RouteCatalogue): unknown {
  return keyword(routes.find('POST', MONITORS_API)?.schema, 'body');
}

/** The types a monitor can have, from the create route's schema (none while there is no such route). */
export function monitorTypes(routes: RouteCatalogue): string[] {
  return allowedValues(keyword(keyword(createMonitorBody(routes), 'properties'), 'type')) ?? [];
}

function conditionField(name: string, label: string, schema: unknown, defaultValue: unknown): ConditionField {
  const description = keyword(schema, 'description');
  const common = {
    name,
    label,
    ...(typeof description === 'string' ? { hint: firstSentence(description).replace(/`([^`]*)`/g, '$1') } : {}),
    ...(defaultValue === undefined ? {} : { defaultValue: String(defaultValue) }),
  };
  const type = keyword(schema, 'type');
  if (type === 'array') return { ...common, kind: 'list' };
  if (type === 'string') return { ...common, kind: 'text' };
  if (type !== 'number' && type !== 'integer') return { ...common, kind: 'flag' };
  const [min, max] = [keyword(schema, 'minimum'), keyword(schema, 'maximum')];
  return {
    ...common,
    kind: 'number',
    ...(typeof min === 'number' ? { min } : {}),
    ...(typeof max === 'number' ? { max } : {}),
  };
}

export interface TypeConditions {
  readonly fields: readonly ConditionField[];
  /** What is down whatever the conditions say (the type's description, without its defaults). */
  readonly always?: string;
}

/**
 * A type's conditions as the form shows them: each one's schema (its kind, hint and limits) and the
 * value it has when a monitor is given none. A condition without words here is a bug, said at once.
 */
export function monitorConditions(type: MonitorType): TypeConditions {
  const { properties, defaults, description } = MONITOR_CONDITIONS[type];
  const fields = Object.entries(properties).map(([name, schema]) => {
    const label = CONDITION_LABELS[type][name];
    if (label === undefined) throw new Error(`the monitor form has no words for the ${type} condition ${name}`);
    const [option] = Object.keys(conditionOptions(type, { [name]: 'x' }));
    return { ...conditionField(name, label, schema, defaults[name]), ...(option ? { option } : {}) };
  });
  const always = description
    .replace(/\s*Without `conditions`:.*$/s, '')
    .replace(/`([^`]*)`/g, '$1')
    .trim();
  return { fields, ...(always ? { always } : {}) };
}
