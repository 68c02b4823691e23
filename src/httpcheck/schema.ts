import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { VALIDATION_CODES } from '../tls/validation.ts';
import { MAX_REDIRECTS } from './checker.ts';
import { cutMark, MAX_HEADER_VALUE_LENGTH, withheldCookies } from './headers.ts';
import { HTTP_CHECK_TOOL } from './tool.ts';

const ms = (description: string) => Type.Number({ description: `Milliseconds: ${description}` });
const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const HttpCheckAnswer = Type.Object(
  {
    url: Type.String({ description: 'The URL that gave the final answer, after redirects (fragment dropped).' }),
    method: Type.String({ enum: ['GET', 'HEAD'], description: 'The method used for every request.' }),
    address: Type.String({
      description: 'The IP address the final request connected to (resolved once, checked by the target policy).',
    }),
    status: Type.Integer({
      description:
        'The final response status. `101` (Switching Protocols) ends the check at once with what arrived: the connection carries no more HTTP.',
    }),
    http_version: Type.String({
      enum: ['1.0', '1.1', '2'],
      description:
        'The HTTP version of the final response: `2` when TLS ALPN chose h2, else what the status line said (http:// URLs use HTTP/1.1).',
    }),
    redirects: Type.Array(
      Type.Object(
        {
          url: Type.String({ description: 'The URL requested.' }),
          status: Type.Integer({ description: '301, 302, 303, 307 or 308.' }),
          location: Type.String({
            description:
              'The Location header as the server sent it (it may be relative; the next entry, or `url`, is it resolved as a browser does).',
          }),
        },
        { additionalProperties: false },
      ),
      {
        description: `Each redirect followed, in order (at most ${MAX_REDIRECTS}; the body of a redirect is not read).`,
      },
    ),
    headers: Type.Record(Type.String(), Type.String(), {
      description: `Every header of the final response, names lower-cased, in the order sent, values as strings: a repeated header's values joined with ", " in the order sent; a value longer than ${MAX_HEADER_VALUE_LENGTH} characters is cut to its first ${MAX_HEADER_VALUE_LENGTH}, followed by \`${cutMark(10000)}\` (its whole length). Set-Cookie is reported only as present, its values withheld: \`${withheldCookies(2)}\`.`,
    }),
    timings: Type.Object(
      {
        dns: ms(
          "resolving the final URL's host through the service's resolver (its cache included, so a cached name is near 0).",
        ),
        tcp: ms('the TCP connection.'),
        tls: Type.Union([Type.Number(), Type.Null()], {
          description: 'Milliseconds: the TLS handshake; null for http://.',
        }),
        first_byte: ms(
          'from the connection being ready (TCP, or TLS for https) to the response headers: sending the request and waiting.',
        ),
        download: ms('from the headers to the end of the body (or the cap); 0 for HEAD.'),
        redirect: ms('every request before the final one, redirects followed (0 without redirects).'),
        total: ms(
          'the whole check, from the first resolution to the end of the final body. The phases follow one another, so it is redirect + dns + tcp + tls + first_byte + download, give or take a turn of the event loop.',
        ),
      },
      {
        additionalProperties: false,
        description: 'Each phase of the final request, timed by the service (performance.now), rounded to 0.01 ms.',
      },
    ),
    body_bytes: Type.Integer({
      description:
        'Bytes of the final body read, as sent (not decompressed; none is asked for), at most HTTP_CHECK_MAX_BODY_BYTES. The body is discarded, never returned.',
    }),
    body_truncated: Type.Boolean({
      description: 'true when the body was longer than HTTP_CHECK_MAX_BODY_BYTES and reading stopped there.',
    }),
    body_found: Type.Optional(
      Type.Boolean({
        description:
          'Only with `body_contains`: true when the body read (up to HTTP_CHECK_MAX_BODY_BYTES, as sent) holds that text.',
      }),
    ),
    tls: Type.Union(
      [
        Type.Object(
          {
            protocol: nullableString('The TLS version negotiated, e.g. `TLSv1.3`.'),
            cipher: nullableString('The cipher suite negotiated (OpenSSL name).'),
            subject: nullableString("The server certificate's CN (its whole subject when it has none)."),
            issuer: nullableString("The issuer's CN."),
            valid_to: nullableString('End of validity, ISO 8601 UTC `YYYY-MM-DDThh:mm:ssZ`.'),
            days_remaining: Type.Union([Type.Integer(), Type.Null()], {
              description: 'Whole days until valid_to, rounded down; negative once expired.',
            }),
            valid: Type.Boolean({
              description:
                'true when the chain verifies against the trust store (dates included) and the certificate names the host.',
            }),
            validation_error: Type.Union([Type.String({ enum: VALIDATION_CODES }), Type.Null()], {
              description: `null when valid; else the main reason, in /api/v1/ssl's words: one of ${VALIDATION_CODES.join(', ')}.`,
            }),
            validation_errors: Type.Array(
              Type.Object(
                { code: Type.String({ enum: VALIDATION_CODES }), message: Type.String() },
                { additionalProperties: false },
              ),
              {
                description:
                  'Every reason found, main one first, each with a sentence, as /api/v1/ssl reports them (which explains a certificate in full).',
              },
            ),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'The TLS connection of the final request; null for http://. An invalid certificate does not stop the check (nothing secret is sent).',
      },
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Makes one HTTP(S) request to a URL, follows up to ${MAX_REDIRECTS} redirects, and reports the final status, the
HTTP version (h2 or HTTP/1.1, chosen by TLS ALPN), every response header (Set-Cookie withheld), the time each phase took, the body's size (read up
to HTTP_CHECK_MAX_BODY_BYTES and discarded) and, for https, the TLS connection and certificate.

Every host, the URL's and each redirect's, is resolved once through the service's resolver (IPv4 when it has both)
and connected to at that address; private, loopback, link-local, multicast, reserved and metadata addresses are
refused unless ALLOW_PRIVATE_TARGETS opens them (\`true\`, or a list of CIDRs holding the address). Only the ports
of HTTP_CHECK_PORTS (80, 443 and 1024-65535 by default) are connected to. A URL that is not http:// or https://,
carries a user name, names a refused address or port, or whose name does not resolve, is a 400. Any later failure
is a 502 whose \`phase\` says where the check stopped: \`dns\` (a resolver failure, or a redirect's name without an
address), \`tcp\` (refused, unreachable), \`tls\` (handshake failed, not TLS), \`first_byte\` (no or a malformed
response), \`download\` (the body broke off), \`redirect\` (more than ${MAX_REDIRECTS}, an invalid Location, or a
redirect to a refused scheme, port or address). HTTP_CHECK_TIMEOUT_MS bounds the whole check; past it the 502
names the phase that did not finish; a caller who closes its connection mid-check stops it, and the target's
connection is closed at once. Each request is sent with \`User-Agent: netinfo-http-check/1\` and \`Accept: */*\`
(no \`Accept-Encoding\`), with the same method at every redirect, on a new connection opened by the service
itself so that each phase is timed where it happens: TCP, then for https TLS with ALPN offering h2 and
http/1.1 (http:// is HTTP/1.1, no h2c); nothing is reused between requests or checks. A user name in a
Location is dropped; fragments are never sent. A check counts as one request against the rate limits,
redirects included.

${inFlightCapText(HTTP_CHECK_TOOL)}`;

export const httpCheckRouteSchema = {
  summary: 'One HTTP(S) request: status, redirects, headers, phase timings, TLS',
  description: DESCRIPTION,
  operationId: 'getHttpCheck',
  tags: ['http'],
  querystring: Type.Object({
    url: Type.String({
      description:
        'An absolute http:// or https:// URL; redirects are followed. Percent-encode it in the query string.',
      examples: ['https://example.com/', 'http://example.com:8080/path?q=1'],
    }),
    method: Type.Optional(
      Type.Enum(['GET', 'HEAD'], { type: 'string', default: 'GET', description: 'GET (default) or HEAD.' }),
    ),
    body_contains: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'Text the body should hold; the answer says in `body_found`. Matched byte for byte (UTF-8, case-sensitive) in the body as sent, up to HTTP_CHECK_MAX_BODY_BYTES; GET only.',
      }),
    ),
  }),
  response: {
    200: okResponse(HttpCheckAnswer, 'The final response, its redirects and its timings.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
