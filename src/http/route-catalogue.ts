import type { FastifyContextConfig, FastifyInstance, FastifySchema } from 'fastify';

export interface CataloguedRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: FastifySchema | undefined;
  readonly config: FastifyContextConfig | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's catalogue (tests read the tools and forms from it as the service does). */
    routeCatalogue: RouteCatalogue;
  }
}

export interface RouteCatalogue {
  readonly routes: readonly CataloguedRoute[];
  find(method: string, url: string): CataloguedRoute | undefined;
}

/**
 * Every route as it is added, with its schema as given (the TypeBox objects): what the tool pages and
 * the MCP server (mcp/tools.ts) read instead of restating the API. Created before any route, so the hook sees
 * all of them, plugins' included (they load at ready: read the catalogue lazily).
 */
export function createRouteCatalogue(app: FastifyInstance): RouteCatalogue {
  const routes: CataloguedRoute[] = [];
  app.addHook('onRoute', (route) => {
    // Read through the route's options: later onRoute hooks (a plugin's, the rate limiter's) replace its config.
    for (const method of [route.method].flat()) {
      routes.push({
        method,
        url: route.url,
        get schema() {
          return route.schema;
        },
        get config() {
          return route.config;
        },
      });
    }
  });
  const catalogue: RouteCatalogue = {
    routes,
    find: (method, url) => routes.find((route) => route.method === method && route.url === url),
  };
  app.decorate('routeCatalogue', catalogue);
  return catalogue;
}
