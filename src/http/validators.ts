import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions, RouteOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type Validator = ((data: unknown) => boolean) & { errors?: unknown };
// What Fastify actually passes and expects (the published types describe Ajv's own compile()).
type RouteDefinition = { schema: unknown; method: string; url: string; httpPart: string };
type CompilerFromPool = (externalSchemas: unknown, options: unknown) => (route: RouteDefinition) => Validator;

/**
 * Fastify's own validator compiler (Ajv), with these corrections:
 * - JSON bodies are not type-coerced (query strings need it, being text): `{"password":
 *   1234567890123}` was taken as the string "1234567890123".
 * - Coerced numbers must be finite: Ajv turns "Infinity" or "1e999" into a non-finite number and
 *   then skips its integer, minimum and maximum checks (ajv#2212, fastify#6718): `count=Infinity`
 *   reached the ping route as Infinity.
 * - Numbers in a coerced part are written in decimal: Ajv's coercion is `Number()`, which also reads
 *   `1e1`, `0x5`, `0b11`, `+5`, ` 5` and `5.`: `count=0x5` pinged five times.
 * - Unknown query parameters are refused, not dropped: Fastify's Ajv removes the properties an
 *   `additionalProperties: false` schema does not declare, and every query schema is closed
 *   (http/query-params.ts), so the caller hears of a misspelt or unsupported parameter.
 */
export function strictValidators(): ValidatorFactory {
  const factory = AjvCompiler() as unknown as CompilerFromPool;
  const strict: CompilerFromPool = (externalSchemas, options) => {
    const { customOptions } = options as { customOptions?: object };
    const withOptions = (changes: object) =>
      factory(externalSchemas, { ...(options as object), customOptions: { ...customOptions, ...changes } });
    const coercing = factory(externalSchemas, options);
    let exact: ReturnType<CompilerFromPool> | undefined;
    let keepingUnknown: ReturnType<CompilerFromPool> | undefined;
    return (route) => {
      if (route.httpPart === 'body') {
        exact ??= withOptions({ coerceTypes: false });
        return exact(route);
      }
      if (route.httpPart === 'querystring') {
        keepingUnknown ??= withOptions({ removeAdditional: false });
        return decimalNumbersOnly(keepingUnknown(route), numericProperties(route.schema));
      }
      return decimalNumbersOnly(coercing(route), numericProperties(route.schema));
    };
  };
  return strict as unknown as ValidatorFactory;
}

const DECIMAL = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ } as const;

/** Whether a value as sent (text, or a list of texts for a repeated parameter) is written in decimal. */
function writtenInDecimal(raw: unknown, kind: NumericKind): boolean {
  if (Array.isArray(raw)) return raw.every((item) => writtenInDecimal(item, kind));
  return typeof raw !== 'string' || DECIMAL[kind].test(raw);
}

function decimalNumbersOnly(validate: Validator, numeric: readonly NumericProperty[]): Validator {
  if (numeric.length === 0) return validate;
  const checked: Validator = (data) => {
    const values = data as Record<string, unknown> | null;
    // Read before Ajv runs: its coercion replaces the text with the number in place.
    for (const { name, kind } of numeric) {
      if (!writtenInDecimal(values?.[name], kind)) {
        const message =
          kind === 'integer'
            ? 'must be a whole number written in decimal digits'
            : 'must be a number written in decimal digits';
        checked.errors = [{ instancePath: `/${name}`, keyword: 'type', params: {}, message }];
        return false;
      }
    }
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    for (const { name } of numeric) {
      const value = values?.[name];
      if (typeof value === 'number' && !Number.isFinite(value)) {
        checked.errors = [{ instancePath: `/${name}`, keyword: 'type', params: {}, message: 'must be finite' }];
        return false;
      }
    }
    checked.errors = null;
    return true;
  };
  return checked;
}

type NumericKind = 'integer' | 'number';
type NumericProperty = { name: string; kind: NumericKind };

/** The properties an object schema declares as integer or number (integer when a type list has both). */
export function numericProperties(schema: unknown): NumericProperty[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (properties === undefined) return [];
  return Object.entries(properties).flatMap(([name, property]): NumericProperty[] => {
    const types = Array.isArray(property.type) ? property.type : [property.type];
    if (types.includes('integer')) return [{ name, kind: 'integer' }];
    if (types.includes('number')) return [{ name, kind: 'number' }];
    return [];
  });
}

/**
 * For a route whose body must be taken exactly as sent (`validatorCompiler` of the route): unknown
 * fields refused rather than dropped, nothing coerced. A measurement's `{"cuntry": "FR"}` selector
 * ran from anywhere; the account API keeps dropping what it does not store.
 */
export function exactValidatorCompiler(): NonNullable<RouteOptions['validatorCompiler']> {
  const factory = AjvCompiler() as unknown as CompilerFromPool;
  const compile = factory({}, { customOptions: { coerceTypes: false, removeAdditional: false }, plugins: [] });
  return ({ schema, method, url, httpPart }) =>
    compile({ schema, method, url, httpPart: httpPart ?? 'body' }) as ReturnType<
      NonNullable<RouteOptions['validatorCompiler']>
    >;
}

/**
 * For a route whose handler checks its body itself (the batch, read as text, its messages saying
 * which rule broke): the body passes as it came, the query string is checked as every route's.
 * A compiler passing everything let `POST /api/v1/batch?hots=x` through unrefused.
 */
export function bodyCheckedByHandlerCompiler(): NonNullable<RouteOptions['validatorCompiler']> {
  const compile = (strictValidators() as unknown as CompilerFromPool)({}, { customOptions: {}, plugins: [] });
  return ({ schema, method, url, httpPart }) =>
    (httpPart === 'body'
      ? () => true
      : compile({ schema, method, url, httpPart: httpPart ?? 'querystring' })) as ReturnType<
      NonNullable<RouteOptions['validatorCompiler']>
    >;
}
