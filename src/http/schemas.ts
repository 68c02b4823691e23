import { Type } from 'typebox';

/** The spec's error body; a 429 adds `limit` and `reset`, and a rate limit's 429 `remaining`. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'What went wrong and what to fix. A 429 says it in words: which limit, when it resets as "14:00 UTC (in 23 minutes)", and for a request that counts as several (a batch) how many it needs and how many remain; a caller who sent an API key is not told to get one.',
    }),
    limit: Type.Optional(
      Type.Integer({ description: '429 only: the limit that applied (hourly or daily, or the cap that was full).' }),
    ),
    reset: Type.Optional(
      Type.Integer({
        description: '429 only: UNIX time at which that limit resets (or a slot is free at the latest).',
      }),
    ),
    remaining: Type.Optional(
      Type.Integer({
        description:
          '429 of the hourly and daily limits only: requests the caller has left (X-RateLimit-Remaining); above 0 when the request needed more than that, as a batch of more items than remain.',
      }),
    ),
    quota: Type.Optional(Type.Integer({ description: '403 key quota only: the active keys the plan allows.' })),
    phase: Type.Optional(
      Type.String({
        description:
          '502 of /api/v1/http only: where the check stopped (dns, tcp, tls, first_byte, download, redirect).',
      }),
    ),
  },
  { $id: 'ErrorBody', description: 'Error body of every non-2xx JSON response.' },
);

const rateLimitHeaders = {
  'X-RateLimit-Limit': { description: "Maximum requests per hour for the caller's tier.", type: 'integer' },
  'X-RateLimit-Remaining': {
    description: 'Requests left before the hourly or the daily window refuses, whichever comes first.',
    type: 'integer',
  },
  'X-RateLimit-Reset': {
    description: 'UNIX time at which the binding window (the one that would refuse first) resets.',
    type: 'integer',
  },
  'X-Request-Id': {
    description: "Request id (the caller's own when sane); it appears in every log line.",
    type: 'string',
  },
} as const;

const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description, headers: rateLimitHeaders });

const retryAfterHeader = {
  'Retry-After': { description: 'Whole seconds until `reset` (at least 1).', type: 'integer' },
} as const;

/** Error responses every rate-limited API route can give, for the OpenAPI document. */
export const commonErrorResponses = {
  400: errorResponse('Missing, invalid or unknown query parameter (the message names it).'),
  401: {
    ...errorResponse(
      'The Authorization header is not `Bearer <key>`, or the key is malformed, unknown or revoked, or its account disabled.',
    ),
    headers: {
      ...rateLimitHeaders,
      'WWW-Authenticate': {
        description: '`Bearer error="invalid_request"` or `Bearer error="invalid_token"` (RFC 6750).',
        type: 'string',
      },
    },
  },
  429: {
    ...errorResponse('A limit is spent; the body fields say which, when it resets and what remains.'),
    headers: { ...rateLimitHeaders, ...retryAfterHeader },
  },
  500: errorResponse('Internal server error (details are logged with the request id).'),
} as const;

export const upstreamErrorResponse = {
  502: errorResponse('An upstream service (DNS, WHOIS, TLS peer) failed.'),
} as const;

/**
 * Answers about the caller (its address, location, family) are `Cache-Control: no-store`: a shared
 * cache in front of the service (Varnish's default, for one, keeps such a 200 for two minutes) must
 * never give one caller's answer to another.
 */
export const CALLER_SPECIFIC_CACHE_CONTROL = 'no-store';

export const callerSpecificHeaders = {
  'Cache-Control': {
    description: 'Always `no-store`: the answer describes the caller, so no cache may hand it to anyone else.',
    type: 'string',
  },
} as const;

/** A response about the caller, which no shared cache may keep. */
export const callerSpecific = <T extends { headers: object }>(response: T) => ({
  ...response,
  headers: { ...response.headers, ...callerSpecificHeaders },
});

export function okResponse<T extends object>(schema: T, description: string) {
  return { ...schema, description, headers: rateLimitHeaders };
}
