import { accountErrors } from './account-errors.ts';
import { ApiError } from './api-error.ts';
import { limitErrors } from './limit-errors.ts';

export { ApiError } from './api-error.ts';

/**
 * The error catalogue: every error the API returns is made here, once, with its status and a
 * message that tells the caller what to fix. One handler (error-handler.ts) renders them as the
 * spec's `{ "error": "..." }`, plus the extra fields an error carries (the 429's limit and reset).
 */
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

  abuseContactNotFound: (message: string) => new ApiError(404, 'abuse_contact_not_found', message),

  unknownAsn: (asn: string) => new ApiError(404, 'asn_not_found', `The loaded ASN data has no prefixes of ${asn}.`),

  rpkiDataUnavailable: () =>
    new ApiError(
      503,
      'rpki_data_unavailable',
      'No RPKI VRP set is loaded (FEED_RPKI_URL is off, or the refresh has not installed one yet); the operator can see why in /readyz.',
    ),

  unknownResolverToken: () =>
    new ApiError(404, 'resolver_token_not_found', 'No resolver has asked for this token, or its test expired.'),

  resolverTestOff: () =>
    new ApiError(503, 'resolver_test_off', 'The resolver test is off: the operator has not set RESOLVER_TEST_ZONE.'),

  asnDataUnavailable: () =>
    new ApiError(
      503,
      'asn_data_unavailable',
      'No ASN data is loaded, so no AS can be described; the operator can see why in /readyz.',
    ),

  measurementNotFound: () =>
    new ApiError(404, 'measurement_not_found', 'No such measurement: unknown, or expired (MEASUREMENT_TTL_SECONDS).'),

  monitorNotFound: () => new ApiError(404, 'monitor_not_found', 'No monitor of yours has this id.'),

  monitorsNeedAccount: () =>
    new ApiError(
      401,
      'account_required',
      'Monitors belong to an account: send an API key (Authorization: Bearer) or sign in on /dashboard.',
    ),

  monitorQuotaReached: (plan: string, quota: number) =>
    new ApiError(
      403,
      'monitor_quota_reached',
      `A ${plan} account may have ${quota} monitors (MONITOR_LIMITS); delete one first.`,
    ),

  meshUnavailable: () =>
    new ApiError(
      503,
      'mesh_unavailable',
      "The mesh's Redis is not answering, so measurements cannot be made or read now; try again shortly.",
    ),

  /** /api/v1/batch bodies: each says which rule the body broke. */
  invalidBatch: (problem: string) => new ApiError(400, 'bad_request', `Invalid batch: ${problem}.`),

  bodyTooLarge: (limitBytes: number) =>
    new ApiError(413, 'body_too_large', `The request body is larger than ${limitBytes / 1_048_576} MB.`),

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

  upstream: (message: string) => new ApiError(502, 'upstream_error', message),

  /** /api/v1/http: the phase (dns, tcp, tls, first_byte, download, redirect) where the check stopped. */
  httpCheckFailed: (url: string, phase: string, message: string) =>
    new ApiError(502, 'upstream_error', `HTTP check of ${url} failed at ${phase}: ${message}.`, { phase }),

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

  ...accountErrors,
  ...limitErrors,
} as const;
