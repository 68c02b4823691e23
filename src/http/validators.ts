import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type Validator = ((data: unknown) => boolean) & { errors?: unknown };
// What Fastify actually passes and expects (the published types describe Ajv's own compile()).
type RouteDefinition = { schema: unknown; method: string; url: string; httpPart: string };
type CompilerFromPool = (externalSchemas: unknown, options: unknown) => (route: RouteDefinition) => Validator;

/**
 * Fastify's own validator compiler (Ajv), refusing numbers that are not finite. With type coercion
 * (query strings are text) Ajv turns "Infinity" or "1e999" into a non-finite number and then skips
 * its integer, minimum and maximum checks (ajv#2212, fastify#6718): `count=Infinity` reached the
 * ping route as Infinity. Bodies are coerced the same way (`{"x":"Infinity"}`). So a schema's
 * top-level numeric properties are checked again after Ajv accepted the data.
 */
export function finiteNumbersOnly(): ValidatorFactory {
  const factory = AjvCompiler() as unknown as CompilerFromPool;
  const finite: CompilerFromPool = (externalSchemas, options) => {
    const compile = factory(externalSchemas, options);
    return (route) => {
      const validate = compile(route);
      const numeric = numericProperties(route.schema);
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
    };
  };
  return finite as unknown as ValidatorFactory;
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
