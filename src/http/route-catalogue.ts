import type { FastifyInstance, FastifySchema } from 'fastify';

export interface CataloguedRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: FastifySchema | undefined;
}

export interface RouteCatalogue {
  readonly routes: readonly CataloguedRoute[];
  find(method: string, url: string): CataloguedRoute | undefined;
}

/**
 * Every route as it is added, with its schema as given (the TypeBox objects): what the tool pages and
 * later the MCP server read instead of restating the API. Created before any route, so the hook sees
 * all of them, plugins' included (they load at ready: read the catalogue lazily).
 */
export function createRouteCatalogue(app: FastifyInstance): RouteCatalogue {
  const routes: CataloguedRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, schema: route.schema });
  });
  return {
    routes,
    find: (method, url) => routes.find((route) => route.method === method && route.url === url),
  };
}
