import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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
  accountRouteSchema,
  CREDENTIALS_BODY_LIMIT_BYTES,
  loginRouteSchema,
  logoutRouteSchema,
  signupRouteSchema,
} from './account-schemas.ts';
import type { Accounts } from './accounts.ts';
import { normaliseEmail } from './email.ts';
import { iso } from './key-routes.ts';
import { passwordProblem } from './passwords.ts';
import { expiredSessionCookie } from './session-cookie.ts';

const credentialRules = {
  email: { what: 'email address', rule: 'must be text of at most 320 characters' },
  password: { what: 'password', rule: 'must be text of at most 1024 characters' },
};

/** Sign-up, login, logout and the signed-in account (GET): the routes of a browser session. */
export const sessionRoutes: FastifyPluginAsyncTypebox<{ accounts: Accounts }> = async (scope, { accounts }) => {
  scope.post(
    `${ACCOUNT_PREFIX}/signup`,
    { attachValidation: true, bodyLimit: CREDENTIALS_BODY_LIMIT_BYTES, schema: signupRouteSchema },
    async (request, reply) => {
      throwIfInvalid(request, credentialRules);
      const { body } = request;
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
    { attachValidation: true, bodyLimit: CREDENTIALS_BODY_LIMIT_BYTES, schema: loginRouteSchema },
    async (request, reply) => {
      throwIfInvalid(request, credentialRules);
      const { body } = request;
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

  scope.post(`${ACCOUNT_PREFIX}/logout`, { schema: logoutRouteSchema }, async (request, reply) => {
    const session = await currentSession(accounts, request);
    if (session) {
      requireCsrfToken(accounts, request, session);
      await accounts.sessions.end(session.id);
    }
    reply.header('set-cookie', expiredSessionCookie(isSecureRequest(accounts, request)));
    return reply.code(204).send();
  });

  scope.get(ACCOUNT_PREFIX, { schema: accountRouteSchema }, async (request) => {
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
  });
};

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
