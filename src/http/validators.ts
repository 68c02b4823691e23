import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type Validator = ((data: unknown) => boolean) & { errors?: unknown };
// What Fastify actually passes and expects (the published types describe Ajv's own compile()).
type RouteDefinition = { schema: unknown; method: string; url: string; httpPart: string };
type CompilerFromPool = (externalSchemas: unknown, options: unknown) => (route: RouteDefinition) => Validator;

/**
 * Fastify's own validator compiler (Ajv), with three corrections:
 * - JSON bodies are not type-coerced. Fastify's Ajv coerces every part, which query strings need
 *   (they are text) but a JSON body does not: `{"password": 1234567890123}` was taken as the string
 *   "1234567890123", `{"name": 5}` as "5". A body now has the types its schema says, or is a 400.
 * - Coerced numbers must be finite. Ajv turns "Infinity" or "1e999" into a non-finite number and
 *   then skips its integer, minimum and maximum checks (ajv#2212, fastify#6718): `count=Infinity`
 *   reached the ping route as Infinity. So the top-level numeric properties of a coerced part are
 *   checked again after Ajv accepted it. (Without coercion Ajv refuses non-finite numbers itself.)
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
        return finiteNumbersOnly(keepingUnknown(route), numericProperties(route.schema));
      }
      return finiteNumbersOnly(coercing(route), numericProperties(route.schema));
    };
  };
  return strict as unknown as ValidatorFactory;
}

function finiteNumbersOnly(validate: Validator, numeric: readonly string[]): Validator {
  if (numeric.length === 0) return validate;
  const checked: Validator = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    const values = data as Record<string, unknown> | null;
    for (const name of numeric) {
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

/** Names of the properties an object schema declares as integer or number. */
export function numericProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (properties === undefined) return [];
  return Object.entries(properties)
    .filter(([, property]) => {
      const types = Array.isArray(property.type) ? property.type : [property.type];
      return types.includes('integer') || types.includes('number');
    })
    .map(([name]) => name);
}
