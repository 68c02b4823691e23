// The 400s for requests their route's schema refused, and for path parameters the router found too
// long: each names the parameter and says what a valid value looks like (the route's hints).
import type { FastifyInstance } from 'fastify';
import { type ApiError, apiErrors } from './errors.ts';

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Turns the first schema-validation issue into the catalogue's 400 for a query or path parameter. */
export function validationError(
  issues: readonly ValidationIssue[],
  hints: Record<string, string> = {},
  part = 'querystring',
): ApiError {
  const issue = issues[0];
  if (!issue) return apiErrors.badRequest('Invalid request.');
  if (part === 'body') return bodyError(issue);
  if (issue.keyword === 'required') return apiErrors.missingParameter(String(issue.params.missingProperty));
  const name = issue.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  if (name === '') return apiErrors.badRequest(`Invalid request: ${issue.message ?? 'not accepted'}.`);
  const hint = hints[name];
  if (part === 'params') return apiErrors.invalidPathParameter(name, hint ?? issue.message ?? 'not accepted');
  if (hint) return apiErrors.invalidParameter(name, hint);
  if (issue.keyword === 'enum') {
    const allowed = (issue.params.allowedValues as unknown[] | undefined) ?? [];
    return apiErrors.invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  }
  return apiErrors.invalidParameter(name, issue.message ?? 'not accepted');
}

/** A JSON body's field by its path: `locations[0].limit`. */
function bodyError(issue: ValidationIssue): ApiError {
  const path = issue.instancePath
    .split('/')
    .slice(1)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
  if (issue.keyword === 'required') {
    const field = `${path === '' ? '' : `${path}.`}${String(issue.params.missingProperty)}`;
    return apiErrors.badRequest(`The body lacks the field '${field}'.`);
  }
  if (issue.keyword === 'additionalProperties') {
    const field = `${path === '' ? '' : `${path}.`}${String(issue.params.additionalProperty)}`;
    return apiErrors.badRequest(`The body has a field '${field}' this endpoint does not take.`);
  }
  const allowed = issue.keyword === 'enum' ? (issue.params.allowedValues as unknown[] | undefined) : undefined;
  const problem = allowed ? `must be one of ${allowed.join(', ')}` : (issue.message ?? 'is not accepted');
  if (path === '') return apiErrors.badRequest(`The body ${problem}.`);
  return apiErrors.badRequest(`Invalid field '${path}' in the body: ${problem}.`);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-parameter text for 400 messages: what a valid value looks like. */
    parameterHints?: Record<string, string>;
  }
}

interface HintedRoute {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly hints: Record<string, string>;
}

/** Per app: the routes whose path parameters have hints, so an over-long one is their 400, not a 414. */
const hintedRoutes = new WeakMap<FastifyInstance, HintedRoute[]>();

export function rememberHintedRoutes(app: FastifyInstance): void {
  const routes: HintedRoute[] = [];
  hintedRoutes.set(app, routes);
  app.addHook('onRoute', (route) => {
    const hints = route.config?.parameterHints;
    if (hints === undefined || !route.url.includes(':')) return;
    const names: string[] = [];
    const source = route.url
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/?]*)';
      })
      .join('/');
    routes.push({ pattern: new RegExp(`^${source}(?:\\?|$)`), names, hints });
  });
}

/**
 * The hinted parameter over `maxLength` that a URL the router refused as too long would have matched: the router names
 * no route then, so a parameter with a hint (an address, an ASN) gets a 400 saying what it must
 * be, as a malformed one does, rather than the generic 414.
 */
export function hintedParameterAt(
  app: FastifyInstance,
  url: string,
  maxLength: number,
): { name: string; hint: string } | undefined {
  for (const route of hintedRoutes.get(app) ?? []) {
    const match = route.pattern.exec(url);
    if (match === null) continue;
    for (let i = 0; i < route.names.length; i++) {
      const name = route.names[i] as string;
      const hint = route.hints[name];
      if ((match[i + 1]?.length ?? 0) > maxLength && hint !== undefined) return { name, hint };
    }
  }
  return undefined;
}
