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

  upstream: (message: string) => new ApiError(502, 'upstream_error', message),

  internal: (requestId: string) =>
    new ApiError(500, 'internal_error', `Internal server error. Quote request id ${requestId} when reporting it.`),
} as const;
