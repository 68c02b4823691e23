/**
 * The error catalogue: every error the API returns is made here, once, with its status and a
 * message that tells the caller what to fix. One handler (error-handler.ts) renders them as the
 * spec's `{ "error": "..." }`, plus the extra fields an error carries (the 429's limit and reset).
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

/**
 * Whole seconds from `nowMs` until `reset` (UNIX seconds), at least 1: RFC 9110's Retry-After
 * allows no fractions, and 0 would invite a retry that is refused again.
 */
export function retryAfterSeconds(reset: number, nowMs: number): number {
  return Math.max(1, Math.ceil(reset - nowMs / 1000));
}

/**
 * When `reset` (UNIX seconds) comes, as a reader says it: "14:00 UTC (in 23 minutes)". Said once in
 * a message, never as a UNIX number (that is the body's `reset`, for programs).
 */
export function resetInWords(reset: number, nowMs: number): string {
  const at = new Date(reset * 1000).toISOString().slice(11, 16);
  const minutes = Math.ceil((reset * 1000 - nowMs) / 60_000);
  if (minutes <= 1) return `${at} UTC (within a minute)`;
  if (minutes < 60) return `${at} UTC (in ${minutes} minutes)`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const hoursText = `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
  return `${at} UTC (in ${rest === 0 ? hoursText : `${hoursText} ${rest} ${rest === 1 ? 'minute' : 'minutes'}`})`;
}

/** Every 429: the body's `limit` and `reset`, and Retry-After saying the same as a delay. */
function tooMany(
  code: string,
  message: string,
  limit: number,
  reset: number,
  nowMs: number,
  extra: Record<string, unknown> = {},
): ApiError {
  return new ApiError(
    429,
    code,
    message,
    { limit, reset, ...extra },
    { 'retry-after': String(retryAfterSeconds(reset, nowMs)) },
  );
}

/** What a rate-limit 429 says beyond the window: what is left, what the request asked for, who asked. */
export interface RateLimitContext {
  /** Requests left before either window refuses (X-RateLimit-Remaining), in the body as `remaining`. */
  readonly remaining: number;
  /** What the request counts as (a batch: its distinct items); 1 for most. */
  readonly cost: number;
  /** The route's words for a cost over 1 ("this batch has 101 items"). */
  readonly costText?: string;
  /** The caller sent an API key (accepted or not): a message suggesting one would not help them. */
  readonly sentKey: boolean;
  /** The key sent was refused, so the request counted as public. */
  readonly keyRefused?: boolean;
}

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

export const apiErrors = {
  badRequest: (message: string) => new ApiError(400, 'bad_request', message),

  missingParameter: (name: string) => new ApiError(400, 'bad_request', `Missing required query parameter '${name}'.`),

  /** Query parameters the endpoint does not take: named (the first few, cut short), with the valid ones. */
  unknownParameters: (names: readonly string[], valid: readonly string[], endpoint: string) => {
    const shown = names.slice(0, 5).map((name) => `'${name.length > 40 ? `${name.slice(0, 40)}...` : name}'`);
    const more = names.length > shown.length ? ` and ${names.length - shown.length} more` : '';
    const list = `${shown.join(', ')}${more}`;
    return new ApiError(
      400,
      'bad_request',
      `Unknown query ${names.length === 1 ? 'parameter' : 'parameters'} ${list}: ${
        valid.length === 0
          ? `${endpoint} takes no query parameters`
          : `${endpoint} takes only ${valid.map((name) => `'${name}'`).join(', ')}`
      }.`,
    );
  },

  invalidParameter: (name: string, expected: string) =>
    new ApiError(400, 'bad_request', `Invalid query parameter '${name}': ${expected}.`),

  invalidPathParameter: (name: string, expected: string) =>
    new ApiError(400, 'bad_request', `Invalid path parameter '${name}': ${expected}.`),

  /** `fields` naming something no answer has; the valid names are listed so the caller can fix it. */
  unknownFields: (unknown: readonly string[], valid: readonly string[]) =>
    new ApiError(
      400,
      'bad_request',
      unknown.length === 1 && unknown[0] === ''
        ? `Invalid query parameter 'fields': name at least one field, comma-separated; valid names: ${valid.join(', ')}.`
        : `Invalid query parameter 'fields': no answer has ${unknown.map((name) => `'${name}'`).join(', ')}; valid names: ${valid.join(', ')}.`,
    ),

  unknownAsn: (asn: string) => new ApiError(404, 'asn_not_found', `The loaded ASN data has no prefixes of ${asn}.`),

  asnDataUnavailable: () =>
    new ApiError(
      503,
      'asn_data_unavailable',
      'No ASN data is loaded, so no AS can be described; the operator can see why in /readyz.',
    ),

  /** /api/v1/batch bodies: each says which rule the body broke. */
  invalidBatch: (problem: string) => new ApiError(400, 'bad_request', `Invalid batch: ${problem}.`),

  bodyTooLarge: (limitBytes: number) =>
    new ApiError(413, 'body_too_large', `The request body is larger than ${limitBytes / 1_048_576} MB.`),

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

  notFound: (method: string, path: string) =>
    new ApiError(404, 'not_found', `No endpoint ${method} ${path}. The API is described at /api/v1/openapi.json.`),

  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new ApiError(
      405,
      'method_not_allowed',
      `Method ${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
      {},
      { allow: allowed.join(', ') },
    ),

  rateLimited: (window: 'hourly' | 'daily', limit: number, reset: number, nowMs: number, context: RateLimitContext) => {
    const per = window === 'hourly' ? 'hour' : 'day';
    const when = resetInWords(reset, nowMs);
    const what =
      context.cost > 1 && context.remaining > 0
        ? `${context.costText ?? `this request counts as ${context.cost} requests`}; ${context.remaining} ${context.remaining === 1 ? 'request remains' : 'requests remain'} until ${when} (the limit is ${limit} requests per ${per}).`
        : `${limit} ${limit === 1 ? 'request' : 'requests'} per ${per}, all used; the counter resets at ${when}.`;
    const advice = context.keyRefused
      ? ' The API key sent was refused, so the public limit applied.'
      : context.sentKey
        ? ''
        : ' An API key (free, from /dashboard) raises the limit.';
    return tooMany('rate_limited', `Rate limit exceeded: ${what}${advice}`, limit, reset, nowMs, {
      remaining: context.remaining,
    });
  },

  /** A concurrency cap on ping/traceroute/MTR streams; `reset` is when a slot is free at the latest. */
  tooManyStreams: (scope: 'client' | 'server' | 'share', limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_streams',
      scope === 'client'
        ? `Too many streams: you already have ${limit} ping/traceroute/MTR ${limit === 1 ? 'stream' : 'streams'} open, the most one caller may have at once. Close one or wait for it to finish (by ${resetInWords(reset, nowMs)} at the latest).`
        : scope === 'share'
          ? `Too many streams: the server is busy, and while it is, one caller may have only ${limit} ping/traceroute/MTR ${limit === 1 ? 'stream' : 'streams'} open at once (fewer the busier it is), so that callers with none still get one. Close one or wait for it to finish (by ${resetInWords(reset, nowMs)} at the latest).`
          : `Too many streams: the server is running its maximum of ${limit} ping/traceroute/MTR streams. Try again shortly (a slot is free by ${resetInWords(reset, nowMs)} at the latest).`,
      limit,
      reset,
      nowMs,
    ),

  /** An in-flight cap of /ssl, /http, /mail or /whois (`what`: "/ssl checks"); `reset` is when a slot is free at the latest. */
  tooManyInFlight: (what: string, scope: 'client' | 'server' | 'share', limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_in_flight',
      scope === 'client'
        ? `Too many ${what} at once: you already have ${limit} running, the most one caller may have. Wait for one to finish (by ${resetInWords(reset, nowMs)} at the latest).`
        : scope === 'share'
          ? `Too many ${what} at once: the server is busy, and while it is, one caller may have only ${limit} running (fewer the busier it is), so that callers with none still get one. Wait for one to finish (by ${resetInWords(reset, nowMs)} at the latest).`
          : `Too many ${what} at once: the server is running its maximum of ${limit} for all callers. Try again shortly (one ends by ${resetInWords(reset, nowMs)} at the latest).`,
      limit,
      reset,
      nowMs,
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

  emptyJsonBody: () => new ApiError(400, 'bad_request', 'The body is empty: send a JSON object.'),

  invalidJsonBody: (detail: string) => new ApiError(400, 'bad_request', `The body is not valid JSON: ${detail}.`),

  forbiddenJsonKey: () =>
    new ApiError(
      400,
      'bad_request',
      'The JSON body has a "__proto__" or "constructor.prototype" key, which is refused.',
    ),

  unsupportedMediaType: () =>
    new ApiError(415, 'unsupported_media_type', 'Send the request body as JSON, with Content-Type: application/json.'),

  tooManyAttempts: (what: string, limit: number, reset: number, nowMs: number) =>
    tooMany(
      'too_many_attempts',
      `Too many ${what}: at most ${limit} per window. Try again at ${resetInWords(reset, nowMs)}.`,
      limit,
      reset,
      nowMs,
    ),

  upstream: (message: string) => new ApiError(502, 'upstream_error', message),

  /** /api/v1/http: the phase (dns, tcp, tls, first_byte, download, redirect) where the check stopped. */
  httpCheckFailed: (url: string, phase: string, message: string) =>
    new ApiError(502, 'upstream_error', `HTTP check of ${url} failed at ${phase}: ${message}.`, { phase }),

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

  // Requests Fastify or Node cannot route or parse: answered before any hook runs.
  badUrl: () =>
    new ApiError(400, 'bad_url', 'The URL is not valid: a percent sign must start an escape like %2F or %C3%BC.'),

  pathParameterTooLong: (limit: number) =>
    new ApiError(414, 'uri_too_long', `A path segment of this URL is longer than ${limit} characters.`),

  urlTooLong: (limit: number) =>
    new ApiError(
      414,
      'uri_too_long',
      `The URL is longer than ${limit} bytes (${limit / 1024} KiB), the most this service reads. Send fewer or shorter query parameters.`,
    ),

  urlNotEncoded: () =>
    new ApiError(
      400,
      'bad_url',
      'The URL contains raw bytes that must be percent-encoded (non-ASCII characters, control characters): send each byte as %XX, for example ü as %C3%BC (its UTF-8 bytes). curl does it with --data-urlencode and -G.',
    ),

  connectNotAllowed: (allowed: readonly string[]) =>
    new ApiError(
      405,
      'method_not_allowed',
      `Method CONNECT is not allowed: this service is not a proxy. Use ${allowed.join(', ')} on its paths.`,
      {},
      { allow: allowed.join(', ') },
    ),

  malformedRequest: () => new ApiError(400, 'malformed_request', 'The HTTP request is malformed and cannot be read.'),

  headersTooLarge: () =>
    new ApiError(431, 'headers_too_large', 'The request headers are too large (16 KiB in all at most).'),

  requestTimeout: () =>
    new ApiError(408, 'request_timeout', 'The request did not arrive in time; send it again in one go.'),

  internal: (requestId: string) =>
    new ApiError(500, 'internal_error', `Internal server error. Quote request id ${requestId} when reporting it.`),
} as const;
