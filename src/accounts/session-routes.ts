import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { publicCaller } from '../limits/caller.ts';
import {
  currentSession,
  isSecureRequest,
  requireCsrfToken,
  requireSession,
  startSession,
  throwIfInvalid,
} from './account-http.ts';
import { emailSubject } from './account-limits.ts';
import { ACCOUNT_PREFIX } from './account-paths.ts';
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
import { iso } from './key-routes.ts';
import { passwordProblem } from './passwords.ts';
import { expiredSessionCookie } from './session-cookie.ts';

const BODY_LIMIT = 16 * 1024;

const credentialRules = {
  email: { what: 'email address', rule: 'must be text of at most 320 characters' },
  password: { what: 'password', rule: 'must be text of at most 1024 characters' },
};

/** Sign-up, login, logout and the signed-in account (GET): the routes of a browser session. */
export function registerSessionRoutes(scope: FastifyInstance, accounts: Accounts): void {
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
      throwIfInvalid(request, credentialRules);
      const body = request.body as { email: string; password: string };
      const email = normaliseEmail(body.email);
      if (!email.ok) throw apiErrors.invalidField('email address', email.reason);
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
      throwIfInvalid(request, credentialRules);
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
