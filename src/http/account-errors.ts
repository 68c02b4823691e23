import { ApiError } from './api-error.ts';

/** A refused API key: 401 with `WWW-Authenticate: Bearer error="..."` (RFC 6750 section 3). */
function keyRefused(bearerError: 'invalid_request' | 'invalid_token', message: string): ApiError {
  return new ApiError(401, 'invalid_api_key', message, {}, { 'www-authenticate': `Bearer error="${bearerError}"` });
}

/**
 * The account API's 401s are about a session cookie, not a key: a Bearer challenge would tell a
 * client that an API key helps, and it does not there. RFC 9110 still wants a challenge on every
 * 401, so they name the form login of the (expired) Cookie scheme draft, draft-broyer-http-cookie-auth:
 * what it says is true, and no browser prompts for it.
 */
const SESSION_CHALLENGE = { 'www-authenticate': 'Cookie realm="netinfo", form-action="/api/v1/account/login"' };

/** The API keys' 401s and the account API's errors. */
export const accountErrors = {
  // API keys (RFC 6750): every 401 says which check failed, and challenges with its error code.
  notBearerAuthorization: () =>
    keyRefused(
      'invalid_request',
      'The Authorization header is not a Bearer key: send the key as `Authorization: Bearer <key>`, or no Authorization header for the public tier.',
    ),

  malformedApiKey: () =>
    keyRefused(
      'invalid_token',
      'The API key is malformed: a key is "nk_" and 36 letters and digits, the last 6 a checksum of the others. Copy it again, whole, from where it was created.',
    ),

  /** One message for both: a caller must not learn that a key once existed. */
  unknownApiKey: () =>
    keyRefused(
      'invalid_token',
      'The API key is unknown or revoked. Create a key in the dashboard (/dashboard), or send no Authorization header for the public tier.',
    ),

  apiKeyOfDisabledAccount: () =>
    keyRefused(
      'invalid_token',
      "The API key's account is disabled. Contact the operator of this service, or send no Authorization header for the public tier.",
    ),

  // The account API (cookie sessions, not API keys).
  missingField: (name: string) =>
    new ApiError(400, 'bad_request', `Missing required field '${name}' in the JSON body.`),

  /** A sentence for the person at the form: `what` names the field as they know it ('password'). */
  invalidField: (what: string, problem: string) => new ApiError(400, 'bad_request', `The ${what} ${problem}.`),

  notSignedIn: () =>
    new ApiError(
      401,
      'not_signed_in',
      'Not signed in, or the session has expired. Log in with POST /api/v1/account/login (or at /dashboard).',
      {},
      SESSION_CHALLENGE,
    ),

  /** The same answer for an unknown email and a wrong password, so it does not tell which emails exist. */
  invalidCredentials: () =>
    new ApiError(401, 'invalid_credentials', 'The email or the password is incorrect.', {}, SESSION_CHALLENGE),

  accountDisabled: () =>
    new ApiError(403, 'account_disabled', 'This account is disabled. Contact the operator of this service.'),

  csrfRejected: (reason: string) =>
    new ApiError(
      403,
      'csrf_rejected',
      `Refused as a possible cross-site request forgery: ${reason}. Send the session's token (from login or GET /api/v1/account) in the X-CSRF-Token header, from this site's own pages.`,
    ),

  keyQuotaReached: (plan: string, quota: number) =>
    new ApiError(
      403,
      'key_quota_reached',
      `Key quota reached: the ${plan} plan allows ${quota} active API keys. Revoke one before creating another.`,
      { quota },
    ),

  keyNotFound: () => new ApiError(404, 'key_not_found', 'No active API key of yours has this id.'),

  emailTaken: () => new ApiError(409, 'email_taken', 'An account with this email already exists. Log in instead.'),

  accountsCannotStore: () =>
    new ApiError(
      503,
      'accounts_cannot_store',
      'The service cannot store accounts, sessions or API keys right now: its account database is out of space. Try again later; API keys already issued and requests without a key still work.',
    ),

  accountsUnavailable: () =>
    new ApiError(
      502,
      'accounts_unavailable',
      'The account database is unavailable, so API keys and accounts cannot be checked right now; try again shortly. Requests without a key are not affected.',
    ),
} as const;
