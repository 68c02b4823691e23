import { apiErrors } from '../http/errors.ts';
import { strictValidators } from '../http/validators.ts';
import type { PortRanges } from '../httpcheck/config.ts';
import { MEASUREMENT_TYPES, type MeasurementType, NOT_OPTIONS, targetProblem } from './measurement-types.ts';

interface QuerySchema {
  properties?: Record<string, unknown>;
}
type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

/**
 * Checks a measurement's target and options with the type's route's own query schema, compiled by
 * the validator Fastify compiles it with (http/validators.ts), on the values as the route would
 * receive them (text): the rules, defaults and limits are the route's, stated once.
 */
export function createOptionsCheck(httpPorts: PortRanges) {
  const compiled = new Map<MeasurementType, { validate: Validate; names: string[] }>();
  const build = (strictValidators() as unknown as (e: unknown, o: unknown) => (route: object) => Validate)(
    {},
    { customOptions: {}, plugins: [] },
  );
  const forType = (type: MeasurementType) => {
    let entry = compiled.get(type);
    if (entry === undefined) {
      const { route, query } = MEASUREMENT_TYPES[type];
      const schema: QuerySchema = query;
      const closed = { ...schema, additionalProperties: false };
      const validate = build({ schema: closed, method: 'GET', url: route, httpPart: 'querystring' });
      entry = { validate, names: Object.keys(schema.properties ?? {}) };
      compiled.set(type, entry);
    }
    return entry;
  };

  /** The options as the route's query parameters (text), or the catalogue's 400 naming the one at fault. */
  return (type: MeasurementType, target: string, given: Record<string, string | number | boolean>) => {
    const { validate, names } = forType(type);
    const problem = targetProblem(type, target, httpPorts);
    if (problem !== null) throw apiErrors.badRequest(`Invalid field 'target' in the body: ${problem}.`);
    const targetName = MEASUREMENT_TYPES[type].target;
    const valid = names.filter((name) => name !== targetName && !NOT_OPTIONS.has(name));
    const options: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (!valid.includes(name)) {
        const list = valid.length === 0 ? 'none' : valid.join(', ');
        throw apiErrors.badRequest(`'options.${name}' is not an option of ${type} (its options: ${list}).`);
      }
      options[name] = String(value);
    }
    // A copy: the validator writes defaults and coerced values into what it checks.
    if (!validate({ ...options, [targetName]: target })) {
      const issue = validate.errors?.[0] as {
        instancePath: string;
        message?: string;
        params?: { missingProperty?: string; allowedValues?: unknown[] };
      };
      if (issue?.params?.missingProperty !== undefined) {
        throw apiErrors.badRequest(`${type} needs the option 'options.${issue.params.missingProperty}'.`);
      }
      const name = issue?.instancePath.replace(/^\//, '') ?? '';
      const field = name === targetName ? 'target' : `options.${name}`;
      const allowed = issue?.params?.allowedValues;
      const problem = allowed ? `must be one of ${allowed.join(', ')}` : (issue?.message ?? 'is not accepted');
      throw apiErrors.badRequest(`Invalid field '${field}' in the body: ${problem}.`);
    }
    return options;
  };
}
