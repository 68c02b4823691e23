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

export const apiErrors = {
  badRequest: (message: string) => new ApiError(400, 'bad_request', message),

  missingParameter: (name: string) => new ApiError(400, 'bad_request', `Missing required query parameter '${name}'.`),

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

  invalidApiKey: () =>
    new ApiError(
      401,
      'invalid_api_key',
      'The API key is invalid or revoked. Send a valid key as "Authorization: Bearer <key>", or no Authorization header for the public tier.',
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

  rateLimited: (window: 'hourly' | 'daily', limit: number, reset: number) =>
    new ApiError(
      429,
      'rate_limited',
      `Rate limit exceeded: ${limit} requests per ${window === 'hourly' ? 'hour' : 'day'}. The counter resets at ${new Date(reset * 1000).toISOString()}; an API key raises the limit.`,
      { limit, reset },
    ),

  /** A concurrency cap on ping/traceroute streams; `reset` is when a slot is free at the latest. */
  tooManyStreams: (scope: 'client' | 'server', limit: number, reset: number) =>
    new ApiError(
      429,
      'too_many_streams',
      scope === 'client'
        ? `Too many streams: you already have ${limit} ping/traceroute ${limit === 1 ? 'stream' : 'streams'} open, the most one caller may have at once. Close one or wait for it to finish (by ${new Date(reset * 1000).toISOString()} at the latest).`
        : `Too many streams: the server is running its maximum of ${limit} ping/traceroute streams. Try again shortly (a slot is free by ${new Date(reset * 1000).toISOString()} at the latest).`,
      { limit, reset },
    ),

  // The account API (cookie sessions, not API keys).
  missingField: (name: string) =>
    new ApiError(400, 'bad_request', `Missing required field '${name}' in the JSON body.`),

  invalidField: (name: string, expected: string) =>
    new ApiError(400, 'bad_request', `Invalid field '${name}': ${expected}.`),

  notSignedIn: () =>
    new ApiError(
      401,
      'not_signed_in',
      'Not signed in, or the session has expired. Log in with POST /api/v1/account/login (or at /dashboard).',
    ),

  /** The same answer for an unknown email and a wrong password, so it does not tell which emails exist. */
  invalidCredentials: () => new ApiError(401, 'invalid_credentials', 'The email or the password is incorrect.'),

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
    new ApiError(
      429,
      'too_many_attempts',
      `Too many ${what}: at most ${limit} per window. Try again after ${new Date(reset * 1000).toISOString()}.`,
      { limit, reset },
      { 'retry-after': String(Math.max(1, reset - Math.floor(nowMs / 1000))) },
    ),

  upstream: (message: string) => new ApiError(502, 'upstream_error', message),

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

  malformedRequest: () => new ApiError(400, 'malformed_request', 'The HTTP request is malformed and cannot be read.'),

  headersTooLarge: () =>
    new ApiError(431, 'headers_too_large', 'The request headers are too large (16 KiB in all at most).'),

  requestTimeout: () =>
    new ApiError(408, 'request_timeout', 'The request did not arrive in time; send it again in one go.'),

  internal: (requestId: string) =>
    new ApiError(500, 'internal_error', `Internal server error. Quote request id ${requestId} when reporting it.`),
} as const;
