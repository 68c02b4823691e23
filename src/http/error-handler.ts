import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StorageFullError, StorageUnavailableError } from '../storage/errors.ts';
import { CORS_HEADERS } from './cors.ts';
import { ApiError, apiErrors } from './errors.ts';
import { unknownQueryParameters } from './query-params.ts';
import { newRequestId } from './request-context.ts';
import { acceptsHtml } from './route-config.ts';
import { hintedParameterAt, rememberHintedRoutes, validationError } from './validation-errors.ts';

/** Fastify's default, stated so the 414 can say it. */
export const MAX_PATH_PARAMETER_LENGTH = 100;

/**
 * The longest request URL (path and query) served; a longer one is a 414 before it is counted or
 * routed. RFC 9112 asks servers to take request lines of at least 8,000 octets, and no query here
 * needs more than a few hundred.
 */
export const MAX_URL_LENGTH = 8192;

/** Methods every API path answers; anything else on a known path is a 405. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.headers(error.headers);
  if (reply.request?.routeOptions?.config?.plainTextErrors === true) {
    return reply.code(error.status).type('text/plain; charset=utf-8').send(`${error.message}\n`);
  }
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ error: error.message, ...error.extra });
}

/**
 * How a browser is answered on a path that is no route (its 404, or the 429 when its limit is
 * spent): a page of the site, set by the site (web/site/), which this module cannot import.
 */
export type HtmlErrorPage = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => FastifyReply;
const htmlErrorPages = new WeakMap<FastifyInstance, HtmlErrorPage>();

export function setHtmlErrorPage(app: FastifyInstance, page: HtmlErrorPage): void {
  htmlErrorPages.set(app, page);
}

/**
 * The site's page instead of the JSON error, for a GET that matched no route from a client that
 * asks for HTML (a browser following a broken link); API clients keep the spec's JSON.
 */
function sendToBrowserOrClient(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  const page = htmlErrorPages.get(app);
  const browser =
    page !== undefined &&
    request.is404 &&
    (request.method === 'GET' || request.method === 'HEAD') &&
    acceptsHtml(request.headers.accept);
  if (!browser) return send(reply, error);
  reply.headers(error.headers);
  return page(request, reply, error);
}

/** The one place errors become responses. 5xx details go to the log (with the request id), never the body. */
export function registerErrorHandling(app: FastifyInstance): void {
  rememberHintedRoutes(app);
  app.setErrorHandler((error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.warn({ code: error.code, message: error.message }, 'upstream failure');
      return sendToBrowserOrClient(app, request, reply, error);
    }
    if (error instanceof StorageFullError) {
      request.log.error({ err: { message: error.message } }, 'account database full');
      return send(reply, apiErrors.accountsCannotStore());
    }
    if (error instanceof StorageUnavailableError) {
      request.log.error({ err: { message: error.message } }, 'account database unavailable');
      return send(reply, apiErrors.accountsUnavailable());
    }
    if (error.validation) {
      // Unknown names first: `?hots=` is better answered with the valid names than "host is missing".
      const unknown = error.validationContext === 'querystring' ? unknownQueryParameters(request) : undefined;
      if (unknown) return send(reply, unknown);
      return send(
        reply,
        validationError(error.validation, request.routeOptions.config.parameterHints, error.validationContext),
      );
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return send(reply, apiErrors.bodyTooLarge(request.routeOptions.bodyLimit));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type) have safe messages.
      return send(reply, new ApiError(status, error.code ?? 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, apiErrors.internal(String(request.id)));
  });

  app.setNotFoundHandler((request, reply) => {
    // Decoded as the router decodes it, so `/%61pi/v1/ipv6` is the known path `/api/v1/ipv6`.
    const path = decodedPath(request.url);
    const known = app.hasRoute({ method: 'GET', url: path });
    // A plain OPTIONS (not a CORS preflight, which http/cors.ts answers) asks what the path allows.
    if (known && request.method === 'OPTIONS') {
      return reply.code(204).header('allow', ALLOWED_METHODS.join(', ')).send();
    }
    if (known && !(ALLOWED_METHODS as readonly string[]).includes(request.method)) {
      return send(reply, apiErrors.methodNotAllowed(request.method, path, ALLOWED_METHODS));
    }
    return sendToBrowserOrClient(app, request, reply, apiErrors.notFound(request.method, path));
  });
}

/** A request URL's path, percent-decoded as the router decodes it (reserved characters stay encoded). */
export function decodedPath(url: string): string {
  const path = url.split('?')[0] ?? url;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/**
 * Fastify's `frameworkErrors`: a URL its router cannot decode (`/api/v1/%zz`) or a path parameter
 * over MAX_PATH_PARAMETER_LENGTH. These are answered before any hook runs, so the request id and
 * CORS headers every response carries are set here; the request is not counted against a rate
 * limit and so has no X-RateLimit-* headers.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.headers(CORS_HEADERS);
  if (error.code === 'FST_ERR_BAD_URL') {
    send(reply, apiErrors.badUrl());
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const named = hintedParameterAt(request.server, request.url, MAX_PATH_PARAMETER_LENGTH);
    send(
      reply,
      named === undefined
        ? apiErrors.pathParameterTooLong(MAX_PATH_PARAMETER_LENGTH)
        : apiErrors.invalidPathParameter(
            named.name,
            `longer than ${MAX_PATH_PARAMETER_LENGTH} characters; expected ${named.hint}`,
          ),
    );
  } else {
    request.log.error({ err: error }, 'unhandled framework error');
    send(reply, apiErrors.internal(String(request.id)));
  }
  // The access log's onResponse hook does not run for these; the same line is written here.
  request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
}

/** A URL over MAX_URL_LENGTH is a 414, first of all: not routed further, not counted. */
export function refuseOverlongUrls(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.url !== undefined && request.raw.url.length > MAX_URL_LENGTH) {
      return done(apiErrors.urlTooLong(MAX_URL_LENGTH));
    }
    done();
  });
}

/**
 * Whether Node's header-size overflow happened in the request line: llhttp stops at the end of the
 * URL when the bytes so far passed the limit, so the packet then reads ` HTTP/...` at the point of
 * failure, with no line ended before it. A URL whose limit is passed at a packet boundary before
 * its end cannot be told from a long header, and stays a 431.
 */
export function overflowInRequestLine(packet: Buffer | undefined, bytesParsed: number | undefined): boolean {
  if (packet === undefined || bytesParsed === undefined) return false;
  return (
    packet.toString('latin1', bytesParsed, bytesParsed + 6) === ' HTTP/' &&
    !packet.subarray(0, bytesParsed).includes('\r\n')
  );
}

type ParseError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

function clientErrorAnswer(error: ParseError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowInRequestLine(error.rawPacket, error.bytesParsed)
        ? apiErrors.urlTooLong(MAX_URL_LENGTH)
        : apiErrors.headersTooLarge();
    // llhttp refuses raw bytes over 0x7F, controls and the like in the request target.
    case 'HPE_INVALID_URL':
      return apiErrors.urlNotEncoded();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiErrors.requestTimeout();
    default:
      return apiErrors.malformedRequest();
  }
}

/**
 * The catalogue's error written straight to a socket, for requests Fastify never sees: its body,
 * a fresh request id, the CORS headers and the error's own (Allow), and `Connection: close`.
 */
function rawAnswer(apiError: ApiError, id: string): string {
  const body = JSON.stringify({ error: apiError.message });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': id,
    ...CORS_HEADERS,
    ...apiError.headers,
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n${lines.join('')}\r\n${body}`;
}

/**
 * Node's `clientError`: a request that cannot be parsed (bad request line, a URL with raw bytes
 * that should be percent-encoded, headers over Node's 16 KiB, too slow to arrive). There is no
 * request to hand to Fastify, so the answer is written to the socket: the catalogue's error body
 * with a fresh request id and the CORS headers, then the connection is closed, as Node and Fastify do.
 */
export function answerClientError(log: { info(details: object, message: string): void }) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError = clientErrorAnswer(error as ParseError);
    const id = newRequestId();
    log.info({ reqId: id, code: error.code, status: apiError.status }, 'unreadable request refused');
    if (socket.writable) socket.write(rawAnswer(apiError, id));
    socket.destroy(error);
  };
}

/**
 * Node's `connect` event: Node hands a CONNECT request to it, never to the request handler, and
 * without a listener drops the connection with no answer. This is not a proxy: the answer is the
 * 405 any other method gets, with `Allow`, then the connection is closed. Not counted against the
 * rate limits (like the other requests Fastify never sees).
 */
export function answerConnect(log: { info(details: object, message: string): void }) {
  return (_request: IncomingMessage, socket: Duplex): void => {
    const id = newRequestId();
    const apiError = apiErrors.connectNotAllowed(ALLOWED_METHODS);
    log.info({ reqId: id, method: 'CONNECT', status: apiError.status }, 'CONNECT refused');
    socket.on('error', () => {});
    if (socket.writable) socket.end(rawAnswer(apiError, id), () => socket.destroy());
    else socket.destroy();
  };
}
