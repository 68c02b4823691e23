interface ObjectSchema {
  properties?: Record<string, ObjectSchema>;
}

/** Every property path of the schemas, parents before children: `location`, `location.city`... */
export function fieldPaths(...schemas: readonly object[]): string[] {
  const paths = new Set<string>();
  const walk = (schema: ObjectSchema, prefix: string) => {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const path = prefix === '' ? name : `${prefix}.${name}`;
      paths.add(path);
      walk(property, path);
    }
  };
  for (const schema of schemas) walk(schema as ObjectSchema, '');
  return [...paths];
}

export type FieldSelection = { ok: true; paths: readonly string[][] } | { ok: false; unknown: string[] };

/** `ip,location.countryCode` -> [['ip'], ['location', 'countryCode']], or the names that are not valid. */
export function parseFields(text: string, valid: ReadonlySet<string>): FieldSelection {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !valid.has(name));
  if (names.length === 0) return { ok: false, unknown: [''] };
  if (unknown.length > 0) return { ok: false, unknown };
  return { ok: true, paths: [...new Set(names)].map((name) => name.split('.')) };
}

type Json = Record<string, unknown>;

/** The answer with only the selected paths (those it has); parents keep only selected children. */
export function pickFields(answer: object, paths: readonly string[][]): Json {
  const picked: Json = {};
  for (const path of paths) {
    // A path the answer lacks adds nothing, not even an empty parent.
    const value = valueAt(answer, path);
    if (value === undefined) continue;
    let into = picked;
    let from = answer as Json;
    let selectedWhole = false;
    for (const key of path.slice(0, -1)) {
      from = from[key] as Json;
      if (into[key] === from) {
        selectedWhole = true; // a parent selected whole stays whole
        break;
      }
      into[key] ??= {};
      into = into[key] as Json;
    }
    if (!selectedWhole) into[path.at(-1) as string] = value;
  }
  return picked;
}

function valueAt(answer: object, path: readonly string[]): unknown {
  let value: unknown = answer;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Json)[key];
  }
  return value;
}
