import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { type ApiError, apiErrors } from '../http/errors.ts';
import { publicCaller } from '../limits/caller.ts';
import { crossSiteReason } from './account-http.ts';
import { ACCOUNT_PATHS, ACCOUNT_PREFIX } from './account-paths.ts';
import type { Accounts } from './accounts.ts';
import { keyRoutes } from './key-routes.ts';
import { sessionRoutes } from './session-routes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks the routes that only answer 405 for methods an account path does not serve. */
    methodGuard?: boolean;
  }
}

export interface AccountPluginOptions {
  accounts: Accounts;
}

/**
 * The account API: cookie sessions, its own abuse limits instead of the tier limits (the tier hook
 * skips ACCOUNT_PREFIX), JSON bodies only, cross-site state changes refused. A plugin's hooks run for
 * its own routes only.
 */
export const accountPlugin: FastifyPluginAsyncTypebox<AccountPluginOptions> = async (app, { accounts }) => {
  registerAccountApiLimit(app, accounts);
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST' && request.method !== 'DELETE') return;
    if (request.routeOptions.config.methodGuard) return;
    const reason = crossSiteReason(accounts, request);
    if (reason) throw apiErrors.csrfRejected(reason);
    if (hasBody(request) && !isJson(request.headers['content-type'])) throw apiErrors.unsupportedMediaType();
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as ApiError, undefined);
    }
  });
  app.register(sessionRoutes, { accounts });
  app.register(keyRoutes, { accounts });
  registerMethodGuards(app);
};

/**
 * Counts every account API request per client, with the usual headers; 404s under the prefix too,
 * which a catch-all route in this scope answers (registerMethodGuards).
 */
function registerAccountApiLimit(scope: FastifyInstance, accounts: Accounts): void {
  const countRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const decision = await accounts.limiter.consume([{ name: 'api', subject: publicCaller(request.clientIp).subject }]);
    reply.headers({
      'x-ratelimit-limit': decision.limit,
      'x-ratelimit-remaining': decision.remaining,
      'x-ratelimit-reset': decision.reset,
    });
    if (!decision.allowed) {
      throw apiErrors.tooManyAttempts('requests to the account API', decision.limit, decision.reset, accounts.now());
    }
  };
  scope.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS') return done();
    countRequest(request, reply).then(() => done(), done);
  });
}

/**
 * A JSON body, or the catalogue's 400 saying what is wrong with it: Fastify's own parser answers
 * "Body is not valid JSON" for every failure, including valid JSON it refuses for a `__proto__` key.
 */
function parseJsonBody(body: string): unknown {
  if (body.trim() === '') throw apiErrors.emptyJsonBody();
  try {
    // Keys that could reach an object's prototype when the body is merged somewhere are refused.
    return secureJson.parse(body, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = (error as Error).message;
    throw /forbidden prototype/.test(message) ? apiErrors.forbiddenJsonKey() : apiErrors.invalidJsonBody(message);
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Other methods on the account paths are 405 with the right Allow header (the shared not-found
 * handler only knows GET paths). OPTIONS stays with the CORS plugin; HEAD follows GET.
 */
function registerMethodGuards(scope: FastifyInstance): void {
  // Unknown paths under the prefix are answered here, inside the scope, so they are counted too.
  scope.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${ACCOUNT_PREFIX}/*`,
    schema: { hide: true },
    config: { methodGuard: true, openQueryString: true },
    handler: async (request: FastifyRequest, _reply: FastifyReply) => {
      throw apiErrors.notFound(request.method, request.url.split('?')[0] ?? request.url);
    },
  });
  for (const [url, allowed] of Object.entries(ACCOUNT_PATHS)) {
    const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => !allowed.includes(method));
    if (others.length === 0) continue;
    scope.route({
      method: others,
      url,
      schema: { hide: true },
      config: { methodGuard: true, openQueryString: true },
      handler: async (request: FastifyRequest, _reply: FastifyReply) => {
        throw apiErrors.methodNotAllowed(request.method, request.url.split('?')[0] ?? url, allowed);
      },
    });
  }
}
