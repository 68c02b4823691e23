import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { type ApiError, apiErrors } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Leave this route's query string unchecked: pages a browser opens with whatever a link adds
     * (`/dashboard?utm_source=...`), and routes that only refuse (405 guards, catch-all 404s).
     */
    openQueryString?: boolean;
  }
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  [key: string | symbol]: unknown;
}

/**
 * Every route's query string is closed: a parameter its schema does not declare is a 400 naming it
 * and listing the valid ones (`/api/v1/json?ip=1.1.1.1` used to answer about the caller, and the
 * user believed they had looked up 1.1.1.1). Done once here, as routes are added, rather than in
 * each route's schema; a route without a query schema gets an empty one. Must be registered before
 * the routes. The validator keeps unknown names rather than dropping them (http/validators.ts).
 */
export function closeQueryStrings(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.openQueryString) return;
    const schema = (route.schema ?? {}) as { querystring?: ObjectSchema };
    const querystring = schema.querystring ?? { type: 'object', properties: {} };
    route.schema = { ...schema, querystring: { ...querystring, additionalProperties: false } };
  });
}

export function declaredQueryParameters(request: FastifyRequest): string[] {
  const querystring = request.routeOptions.schema?.querystring as ObjectSchema | undefined;
  return Object.keys(querystring?.properties ?? {});
}

export function unknownQueryParameters(request: FastifyRequest): ApiError | undefined {
  const declared = declaredQueryParameters(request);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).filter((name) => !declared.includes(name));
  if (unknown.length === 0) return undefined;
  return apiErrors.unknownParameters(unknown, declared, `${request.method} ${request.routeOptions.url ?? ''}`);
}
