import type { RouteCatalogue } from '../../http/route-catalogue.ts';
import type { FieldLayout, ToolDefinition } from './tool-definitions.ts';

export interface ToolField {
  readonly name: string;
  readonly api: string;
  readonly label: string;
  readonly kind: 'text' | 'select' | 'number';
  readonly required: boolean;
  readonly placeholder?: string;
  /** `''` sends nothing: the API's default applies. */
  readonly options?: readonly string[];
  readonly optionLabels?: Readonly<Record<string, string>>;
  readonly defaultValue?: string;
  readonly min?: number;
  readonly max?: number;
  readonly hint?: string;
  readonly narrow?: boolean;
  readonly onlyWith?: { readonly field: string; readonly value: string };
}

export type ToolPage = Omit<ToolDefinition, 'fields'> & {
  readonly fields: readonly ToolField[];
  /** A monitor can run this check: the page offers "Monitor this" (routes.ts reads it from the monitors API). */
  readonly monitor?: boolean;
};

/** A schema keyword, read from TypeBox's plain objects without trusting their static type. */
export function keyword(schema: unknown, key: string): unknown {
  return typeof schema === 'object' && schema !== null ? Reflect.get(schema, key) : undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const numeric = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** The querystring schema of the GET route at `url`: its parameters and which are required. */
export function queryParameters(routes: RouteCatalogue, url: string) {
  const querystring = keyword(routes.find('GET', url)?.schema, 'querystring');
  const properties = keyword(querystring, 'properties');
  if (typeof properties !== 'object' || properties === null) throw new Error(`no querystring schema for GET ${url}`);
  const required = keyword(querystring, 'required');
  return {
    properties: new Map<string, unknown>(Object.entries(properties)),
    required: new Set(Array.isArray(required) ? required.map(String) : []),
  };
}

/** The values a parameter's schema allows, when it lists them (an enum, or a union of literals). */
export function allowedValues(schema: unknown): string[] | undefined {
  const listed = keyword(schema, 'enum');
  if (Array.isArray(listed)) return listed.map(String);
  const union = keyword(schema, 'anyOf');
  if (!Array.isArray(union)) return undefined;
  const literals = union.map((member) => keyword(member, 'const'));
  return literals.every((value) => value !== undefined) ? literals.map(String) : undefined;
}

/**
 * The first sentence of a description: up to a full stop followed by a capital or the end, outside
 * brackets (so `e.g. x` and `(a. b)` do not end it).
 */
export function firstSentence(description: string): string {
  let depth = 0;
  for (let i = 0; i < description.length; i++) {
    const char = description[i];
    if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
    else if (char === '.' && depth === 0 && /^(\s+[A-Z`]|\s*$)/.test(description.slice(i + 1))) {
      return description.slice(0, i + 1);
    }
  }
  return description;
}

/**
 * A select's options. A blank first choice (the layout labels `''`) stands for the value the API
 * takes when none is sent: its default, or `false` of a true/false pair; that value is not offered twice.
 */
function selectOptions(values: readonly string[], layout: FieldLayout, schemaDefault: string | undefined): string[] {
  if (layout.labels?.[''] === undefined) return [...values];
  const isSwitch = values.length === 2 && values.includes('true') && values.includes('false');
  const implied = schemaDefault ?? (isSwitch ? 'false' : undefined);
  return ['', ...values.filter((value) => value !== implied)];
}

function toolField(layout: FieldLayout, schema: unknown, required: boolean): ToolField {
  const schemaDefault = keyword(schema, 'default');
  const given = schemaDefault === undefined ? undefined : String(schemaDefault);
  const values = allowedValues(schema) ?? layout.choices;
  const description = text(keyword(schema, 'description'));
  const common = {
    name: layout.name ?? layout.param,
    api: layout.param,
    label: layout.label,
    required,
    ...(layout.placeholder === undefined ? {} : { placeholder: layout.placeholder }),
    ...(layout.narrow ? { narrow: true } : {}),
    ...(layout.onlyWith ? { onlyWith: layout.onlyWith } : {}),
    ...(layout.hint && description ? { hint: firstSentence(description).replace(/`([^`]*)`/g, '$1') } : {}),
  };
  if (values !== undefined) {
    const options = selectOptions(values, layout, given);
    const defaultValue = options[0] === '' ? '' : (layout.initial ?? given ?? '');
    return { ...common, kind: 'select', options, optionLabels: layout.labels ?? {}, defaultValue };
  }
  const defaultValue = layout.initial ?? given ?? '';
  if (keyword(schema, 'type') === 'integer') {
    const min = numeric(keyword(schema, 'minimum'));
    const max = numeric(keyword(schema, 'maximum'));
    return {
      ...common,
      kind: 'number',
      defaultValue,
      ...(min === undefined ? {} : { min }),
      ...(max === undefined ? {} : { max }),
    };
  }
  if (layout.range) return { ...common, kind: 'number', defaultValue, ...layout.range };
  return { ...common, kind: 'text', defaultValue };
}

export function toolPage(tool: ToolDefinition, routes: RouteCatalogue): ToolPage {
  const { properties, required } = queryParameters(routes, tool.api);
  const fields = tool.fields.map((layout) => {
    if (!properties.has(layout.param)) throw new Error(`${tool.api} has no parameter ${layout.param}`);
    return toolField(layout, properties.get(layout.param), required.has(layout.param));
  });
  return { ...tool, fields };
}
