import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { type ApiError, apiErrors } from '../http/errors.ts';
import { publicCaller } from '../limits/caller.ts';
import {
  crossSiteReason,
  currentSession,
  isSecureRequest,
  requireCsrfToken,
  requireSession,
  startSession,
  throwIfInvalid,
} from './account-http.ts';
import { emailSubject } from './account-limits.ts';
import {
  AccountView,
  accountError,
  accountErrors,
  accountResponse,
  Credentials,
  csrfErrors,
  SignedIn,
  sessionErrors,
} from './account-schemas.ts';
import type { Accounts } from './accounts.ts';
import { normaliseEmail } from './email.ts';
import { iso, registerKeyRoutes } from './key-routes.ts';
import { passwordProblem } from './passwords.ts';
import { expiredSessionCookie } from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks the routes that only answer 405 for methods an account path does not serve. */
    methodGuard?: boolean;
  }
}

export const ACCOUNT_PREFIX = '/api/v1/account';
const BODY_LIMIT = 16 * 1024;

/** Every path of the account API and the methods it answers (others get 405 with Allow). */
const ACCOUNT_PATHS: Readonly<Record<string, readonly string[]>> = {
  [ACCOUNT_PREFIX]: ['GET', 'HEAD', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/signup`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/login`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/logout`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/keys`]: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/keys/:id`]: ['DELETE', 'OPTIONS'],
};

/**
 * The account API: cookie sessions, its own abuse limits instead of the tier limits (the tier hook
 * skips ACCOUNT_PREFIX), JSON bodies only, cross-site state changes refused.
 */
export async function registerAccountRoutes(app: FastifyInstance, accounts: Accounts): Promise<void> {
  // Encapsulated: these hooks run for the account API's routes only, not for every API request.
  await app.register(async (scope) => {
    registerAccountApiLimit(scope, accounts);
    scope.addHook('onRequest', async (request) => {
      if (request.method !== 'POST' && request.method !== 'DELETE') return;
      if (request.routeOptions.config.methodGuard) return;
      const reason = crossSiteReason(accounts, request);
      if (reason) throw apiErrors.csrfRejected(reason);
      if (hasBody(request) && !isJson(request.headers['content-type'])) throw apiErrors.unsupportedMediaType();
    });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
    });
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (error) {
        done(error as ApiError, undefined);
      }
    });
    registerSessionRoutes(scope, accounts);
    registerKeyRoutes(scope, accounts);
    registerMethodGuards(scope);
  });
}

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

const credentialHints = {
  email: 'a string of at most 320 characters',
  password: 'a string of at most 1024 characters',
};

function registerSessionRoutes(scope: FastifyInstance, accounts: Accounts): void {
  scope.post(
    `${ACCOUNT_PREFIX}/signup`,
    {
      attachValidation: true,
      bodyLimit: BODY_LIMIT,
      schema: {
        summary: 'Create an account (plan free) and sign in.',
        security: [],
        description:
          'Sets the session cookie. The email is normalised (trimmed, lower case, domain in punycode). At most 10 sign-ups per client per hour.',
        tags: ['account'],
        body: Credentials,
        response: {
          201: accountResponse(SignedIn, 'Account created; the session cookie is set.'),
          409: accountError('An account with this email exists.'),
          ...csrfErrors,
          ...accountErrors,
        },
      },
    },
    async (request, reply) => {
      throwIfInvalid(request, credentialHints);
      const body = request.body as { email: string; password: string };
      const email = normaliseEmail(body.email);
      if (!email.ok) throw apiErrors.invalidField('email', email.reason);
      const problem = passwordProblem(body.password, email.email);
      if (problem) throw apiErrors.invalidField('password', problem);
      await throttle(accounts, [{ name: 'signup', subject: publicCaller(request.clientIp).subject }], 'sign-ups');
      const outcome = await accounts.accountService.signup(email.email, body.password);
      if (!outcome.ok) throw apiErrors.emailTaken();
      request.log.info({ accountId: outcome.account.id }, 'account created');
      const csrfToken = await startSession(accounts, request, reply, outcome.account.id);
      return reply.code(201).send({ email: outcome.account.email, plan: outcome.account.plan, csrf_token: csrfToken });
    },
  );

  scope.post(
    `${ACCOUNT_PREFIX}/login`,
    {
      attachValidation: true,
      bodyLimit: BODY_LIMIT,
      schema: {
        summary: 'Sign in: a new session (any previous one of this browser ends).',
        security: [],
        description:
          'An unknown email and a wrong password get the same 401, in the same time. Attempts are limited to 20 per client and 10 per email in each 15 minutes (429 with Retry-After).',
        tags: ['account'],
        body: Credentials,
        response: {
          200: accountResponse(SignedIn, 'Signed in; the session cookie is set.'),
          401: accountError('The email or the password is incorrect.'),
          403: accountError('The account is disabled, or the request looks cross-site.'),
          ...accountErrors,
        },
      },
    },
    async (request, reply) => {
      throwIfInvalid(request, credentialHints);
      const body = request.body as { email: string; password: string };
      const email = normaliseEmail(body.email);
      if (!email.ok) throw apiErrors.invalidCredentials();
      await throttle(
        accounts,
        [
          { name: 'loginClient', subject: publicCaller(request.clientIp).subject },
          { name: 'loginEmail', subject: emailSubject(email.email) },
        ],
        'login attempts',
      );
      const outcome = await accounts.accountService.login(email.email, body.password);
      if (!outcome.ok)
        throw outcome.reason === 'disabled' ? apiErrors.accountDisabled() : apiErrors.invalidCredentials();
      const csrfToken = await startSession(accounts, request, reply, outcome.account.id);
      return { email: outcome.account.email, plan: outcome.account.plan, csrf_token: csrfToken };
    },
  );

  scope.post(
    `${ACCOUNT_PREFIX}/logout`,
    {
      schema: {
        summary: 'End the session.',
        security: [{ sessionCookie: [], csrfToken: [] }],
        description: 'Needs the session’s X-CSRF-Token. Without a live session it only clears the cookie.',
        tags: ['account'],
        response: {
          204: { description: 'Signed out; the cookie is cleared.', type: 'null' },
          ...csrfErrors,
          ...accountErrors,
        },
      },
    },
    async (request, reply) => {
      const session = await currentSession(accounts, request);
      if (session) {
        requireCsrfToken(accounts, request, session);
        await accounts.sessions.end(session.id);
      }
      reply.header('set-cookie', expiredSessionCookie(isSecureRequest(accounts, request)));
      return reply.code(204).send();
    },
  );

  scope.get(
    ACCOUNT_PREFIX,
    {
      schema: {
        summary: 'The signed-in account: plan, limits, usage and key quota.',
        security: [{ sessionCookie: [] }],
        tags: ['account'],
        response: { 200: accountResponse(AccountView, 'The account.'), ...sessionErrors, ...accountErrors },
      },
    },
    async (request) => {
      const session = await requireSession(accounts, request);
      const overview = await accounts.accountService.overview(session.account);
      return {
        email: overview.email,
        plan: overview.plan,
        created_at: iso(overview.createdAt),
        limits: overview.limits,
        usage: overview.usage,
        keys: overview.keys,
        csrf_token: session.csrfToken,
      };
    },
  );
}

export async function throttle(
  accounts: Accounts,
  counters: Parameters<Accounts['limiter']['consume']>[0],
  what: string,
): Promise<void> {
  const decision = await accounts.limiter.consume(counters);
  if (decision.refusedBy) {
    throw apiErrors.tooManyAttempts(what, decision.refusedBy.limit, decision.refusedBy.reset, accounts.now());
  }
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
