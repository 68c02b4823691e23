import { Type } from 'typebox';
import { API_KEY_PREFIX } from './api-key-format.ts';
import { ID_PATTERN } from './key-service.ts';
import { EMAIL_NAME_MIN_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

export const KEY_NAME_MAX_LENGTH = 64;
export const CREDENTIALS_BODY_LIMIT_BYTES = 16 * 1024;
export const KEY_BODY_LIMIT_BYTES = 4096;

const accountHeaders = {
  'X-RateLimit-Limit': { description: 'Requests per hour this client may make to the account API.', type: 'integer' },
  'X-RateLimit-Remaining': { description: 'Requests left in this hour.', type: 'integer' },
  'X-RateLimit-Reset': { description: 'UNIX time at which the hour resets.', type: 'integer' },
  'Cache-Control': { description: 'Always `no-store`: these answers carry tokens and keys.', type: 'string' },
} as const;

export function accountResponse<T extends object>(schema: T, description: string) {
  return { ...schema, description, headers: accountHeaders };
}
export const accountError = (description: string) => ({
  ...Type.Ref('ErrorBody'),
  description,
  headers: accountHeaders,
});
const error = accountError;

export const accountErrors = {
  400: error('Invalid JSON or field (the message names the field).'),
  415: error('The body is not JSON.'),
  429: error('Too many requests or attempts; the body carries `limit` and `reset`, and `Retry-After` is set.'),
  500: error('Internal server error (details are logged with the request id).'),
  503: error(
    'The account database is out of space (`accounts_cannot_store`): accounts, sessions and keys cannot be stored now; keys already issued still work.',
  ),
};
export const sessionErrors = {
  401: error(
    'Not signed in, or the session has expired. `WWW-Authenticate: Cookie realm="netinfo", form-action="/api/v1/account/login"`, not Bearer: an API key does not open the account API.',
  ),
};
export const csrfErrors = {
  403: error('Refused as cross-site: no or wrong X-CSRF-Token, or a cross-origin Origin / Sec-Fetch-Site.'),
};

export const Credentials = Type.Object(
  {
    email: Type.String({
      maxLength: 320,
      description:
        'Normalised: trimmed, lower case, domain in punycode. No spaces, quotes, control or invisible (format) characters before the @.',
    }),
    password: Type.String({
      maxLength: 1024,
      description: `At sign-up (NIST SP 800-63B): ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters after Unicode NFKC normalisation; no control characters; not one character repeated; not containing the email, or the name before its @ when that has ${EMAIL_NAME_MIN_LENGTH} characters or more; not one of the common passwords of leaked-password lists. Case is ignored in these comparisons. A refusal is a 400 saying which rule.`,
    }),
  },
  { additionalProperties: false },
);

export const SignedIn = Type.Object({
  email: Type.String(),
  plan: Type.Union([Type.Literal('free'), Type.Literal('pro')]),
  csrf_token: Type.String({ description: 'Send it as `X-CSRF-Token` on POST and DELETE requests of this session.' }),
});

const WindowUsage = Type.Object({
  used: Type.Integer({ description: 'Requests counted in this window, over all of the account’s keys.' }),
  limit: Type.Integer(),
  reset: Type.Integer({ description: 'UNIX time at which the window resets.' }),
});

export const AccountView = Type.Object({
  email: Type.String(),
  plan: Type.Union([Type.Literal('free'), Type.Literal('pro')], {
    description: 'free by default; pro is set by the operator (`npm run admin -- plan <email> pro`).',
  }),
  created_at: Type.String({ description: 'ISO 8601, UTC.' }),
  limits: Type.Object({ hourly: Type.Integer(), daily: Type.Integer() }, { description: 'The plan’s rate limits.' }),
  usage: Type.Object(
    { hourly: WindowUsage, daily: WindowUsage },
    { description: 'This UTC hour and this UTC day, as the rate limiter counts them.' },
  ),
  keys: Type.Object({
    active: Type.Integer({ description: 'Keys not revoked.' }),
    quota: Type.Integer({ description: 'Active keys the plan allows (free 5, pro 20).' }),
  }),
  csrf_token: Type.String({ description: 'Send it as `X-CSRF-Token` on POST and DELETE requests of this session.' }),
});

export const KeyView = Type.Object({
  id: Type.String({ description: 'Used to revoke the key.' }),
  name: Type.String(),
  prefix: Type.String({
    description: `The key’s first characters (\`${API_KEY_PREFIX}\` and 6 more), to tell keys apart.`,
  }),
  created_at: Type.String({ description: 'ISO 8601, UTC.' }),
  last_used_at: Type.Union([Type.String(), Type.Null()], {
    description: 'ISO 8601, UTC, or null if never used. Written in batches about once a minute.',
  }),
});

export const KeyList = Type.Object({
  keys: Type.Array(KeyView, { description: 'Active keys, oldest first (keys made in the same millisecond by id).' }),
});

export const NewKeyRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: KEY_NAME_MAX_LENGTH,
      description:
        'What the key is for, e.g. "backup server". No control or invisible (format) characters such as zero-width spaces or right-to-left overrides.',
    }),
  },
  { additionalProperties: false },
);

export const CreatedKey = Type.Object({
  ...KeyView.properties,
  key: Type.String({
    description: `The key itself, \`${API_KEY_PREFIX}\` + 36 base62 characters. Shown this once: only its hash and an encrypted copy are stored.`,
  }),
});

export const KeyIdParams = Type.Object({ id: Type.String({ pattern: ID_PATTERN }) });

const JSON_BODY =
  'The body is a JSON object whose fields have the documented types (no coercion: a number is not taken for a string).';

export const signupRouteSchema = {
  summary: 'Create an account (plan free) and sign in.',
  security: [],
  description: `Sets the session cookie. The email is normalised (trimmed, lower case, domain in punycode). At most 10 sign-ups per client per hour. ${JSON_BODY}`,
  operationId: 'signUp',
  tags: ['account'],
  body: Credentials,
  response: {
    201: accountResponse(SignedIn, 'Account created; the session cookie is set.'),
    409: accountError('An account with this email exists.'),
    413: accountError(`The body is over ${CREDENTIALS_BODY_LIMIT_BYTES / 1024} KiB.`),
    ...csrfErrors,
    ...accountErrors,
  },
};

export const loginRouteSchema = {
  summary: 'Sign in: a new session (any previous one of this browser ends).',
  security: [],
  description: `An unknown email and a wrong password get the same 401, in the same time (an unknown email still costs a full hash). Attempts are limited to 20 per client and 10 per email in each 15 minutes (429 with Retry-After); the per-email limit counts every attempt, the right password too, so it never tells a guesser when they were right. ${JSON_BODY}`,
  operationId: 'login',
  tags: ['account'],
  body: Credentials,
  response: {
    200: accountResponse(SignedIn, 'Signed in; the session cookie is set.'),
    401: accountError('The email or the password is incorrect.'),
    403: accountError('The account is disabled, or the request looks cross-site.'),
    413: accountError(`The body is over ${CREDENTIALS_BODY_LIMIT_BYTES / 1024} KiB.`),
    ...accountErrors,
  },
};

export const logoutRouteSchema = {
  summary: 'End the session.',
  security: [{ sessionCookie: [], csrfToken: [] }],
  description: 'Needs the session’s X-CSRF-Token. Without a live session it only clears the cookie.',
  operationId: 'logout',
  tags: ['account'],
  response: {
    204: { description: 'Signed out; the cookie is cleared.', type: 'null' },
    ...csrfErrors,
    ...accountErrors,
  },
};

export const accountRouteSchema = {
  summary: 'The signed-in account: plan, limits, usage and key quota.',
  security: [{ sessionCookie: [] }],
  operationId: 'getAccount',
  tags: ['account'],
  response: { 200: accountResponse(AccountView, 'The account.'), ...sessionErrors, ...accountErrors },
};

export const keyListRouteSchema = {
  summary: 'The account’s active API keys (never the keys themselves).',
  security: [{ sessionCookie: [] }],
  operationId: 'getApiKeys',
  tags: ['account'],
  response: {
    200: accountResponse(KeyList, 'Active keys, oldest first (keys made in the same millisecond by id).'),
    ...sessionErrors,
    ...accountErrors,
  },
};

export const newKeyRouteSchema = {
  summary: 'Create an API key: the answer is the only time the key is shown.',
  security: [{ sessionCookie: [], csrfToken: [] }],
  description: `Needs the session’s X-CSRF-Token. Free accounts may have 5 active keys, Pro 20; one more is a 403 naming the quota. ${JSON_BODY}`,
  operationId: 'createApiKey',
  tags: ['account'],
  body: NewKeyRequest,
  response: {
    201: accountResponse(CreatedKey, 'The new key, with `key` shown this once.'),
    ...sessionErrors,
    403: accountError('Key quota reached (the body carries `quota`), or the request looks cross-site.'),
    413: accountError(`The body is over ${KEY_BODY_LIMIT_BYTES / 1024} KiB.`),
    ...accountErrors,
  },
};

export const revokeKeyRouteSchema = {
  summary: 'Revoke an API key: refused (401) from the next request on.',
  security: [{ sessionCookie: [], csrfToken: [] }],
  description: 'Needs the session’s X-CSRF-Token.',
  operationId: 'deleteApiKey',
  tags: ['account'],
  params: KeyIdParams,
  response: {
    204: { description: 'Revoked.', type: 'null' },
    ...sessionErrors,
    ...csrfErrors,
    404: accountError('No active key of this account has this id.'),
    ...accountErrors,
  },
};
