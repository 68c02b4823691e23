import type { RouteCatalogue } from '../../http/route-catalogue.ts';
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
}

/**
 * What the monitor form adds to the API's conditions: their words under the legend "Down when", by
 * type. The schema gives each one's kind and hint.
 */
const CONDITION_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
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

/** Every object schema within `schema` (itself, its properties and items, the members of its unions), depth first. */
function* objectSchemas(schema: unknown): Generator<unknown> {
  if (typeof schema !== 'object' || schema === null) return;
  if (keyword(schema, 'properties') !== undefined) yield schema;
  const properties = keyword(schema, 'properties');
  const nested = [
    ...Object.values(typeof properties === 'object' && properties !== null ? properties : {}),
    keyword(schema, 'items'),
    ...['anyOf', 'oneOf', 'allOf'].flatMap((key) => {
      const members = keyword(schema, key);
      return Array.isArray(members) ? members : [];
    }),
  ];
  for (const child of nested) yield* objectSchemas(child);
}

/** The types a monitor can have, from the create route's schema (none while there is no such route). */
export function monitorTypes(routes: RouteCatalogue): string[] {
  const body = createMonitorBody(routes);
  return allowedValues(keyword(keyword(body, 'properties'), 'type')) ?? [];
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
  /** What is down whatever the conditions: the first sentence of the conditions' description, when it says so. */
  readonly always?: string;
}

/**
 * A type's conditions as the form shows them, from the object schema in the create route's body
 * that holds them, and the values it has when none is given. A condition the API does not take is a
 * bug, said at once.
 */
export function monitorConditions(routes: RouteCatalogue, type: string): TypeConditions {
  const labels = Object.entries(CONDITION_LABELS[type] ?? {});
  const names = labels.map(([name]) => name);
  const holder = [...objectSchemas(createMonitorBody(routes))].find((schema) =>
    names.every((name) => keyword(keyword(schema, 'properties'), name) !== undefined),
  );
  if (holder === undefined) throw new Error(`${MONITORS_API} takes no conditions ${names.join(', ')}`);
  const defaults = keyword(holder, 'default');
  const description = keyword(holder, 'description');
  const always = typeof description === 'string' ? firstSentence(description).trim() : '';
  return {
    fields: labels.map(([name, label]) =>
      conditionField(name, label, keyword(keyword(holder, 'properties'), name), keyword(defaults, name)),
    ),
    ...(always && !always.startsWith('Without') ? { always: always.replace(/`([^`]*)`/g, '$1') } : {}),
  };
}
