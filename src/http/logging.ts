import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream, type Logger } from 'pino';
import { API_KEY_BODY_LENGTH, API_KEY_PREFIX } from './api-key-shape.ts';
import { lazyRequestLogger } from './request-logger.ts';

/**
 * Fastify is built without a logger of its own (`logger: false`) and given this one as `app.log`
 * and, through `requestLoggerFactory`, as every request's `request.log`, for cost: a Fastify with a
 * logger adds two response listeners, two clock reads and two log calls to every request even when
 * the level writes nothing (about 3% of /api/v1/ipv6's busy time in a CPU profile of the benchmark,
 * docs/performance.md). The access log is ours instead (`registerAccessLog`), and exists only at a
 * level that writes it.
 */

// A secret must never reach a log, even when someone logs a request or a body whole.
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'body.password',
  'req.body.password',
];

interface LoggedRequest {
  method?: string;
  url?: string;
  clientIp?: string;
  socket?: { remoteAddress?: string };
}

/**
 * One character of a key as it may stand in a logged text: itself, or percent-encoded any number
 * of times (`_`, `%5F`, `%5f`, `%255F`...). URLs are logged as sent, and a caller who puts a key in
 * the query string (`?api_key=nk%5F...`) or a path must not find it in the operator's logs in any
 * spelling the service would read as that key.
 */
function encodedAs(character: string): string {
  const hex = character.charCodeAt(0).toString(16).toUpperCase();
  const digit = (d: string) => (/[A-F]/.test(d) ? `[${d}${d.toLowerCase()}]` : d);
  return `(?:${character}|%(?:25)*${digit(hex[0] ?? '')}${digit(hex[1] ?? '')})`;
}
/** A base62 character, plain or percent-encoded (0-9 are %30-%39, A-Z %41-%5A, a-z %61-%7A). */
const BASE62_CHARACTER = '(?:[0-9A-Za-z]|%(?:25)*(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]))';
const ENCODED_KEYS = new RegExp(
  `(?<![0-9A-Za-z])${[...API_KEY_PREFIX].map(encodedAs).join('')}${BASE62_CHARACTER}{${API_KEY_BODY_LENGTH}}(?![0-9A-Za-z])`,
  'g',
);

/** Applied to whole lines (pino's `streamWrite` hook), so no field, message or error text can carry a key. */
export function withoutApiKeys(line: string): string {
  // Most lines hold neither the prefix nor a percent sign: two scans, no regular expression.
  if (!line.includes(API_KEY_PREFIX.slice(0, 2)) && !line.includes('%')) return line;
  return line.replace(ENCODED_KEYS, `${API_KEY_PREFIX}[redacted]`);
}

/** No headers, so no credentials. */
function requestFields(request: LoggedRequest) {
  return {
    method: request.method,
    url: request.url,
    remoteAddress: request.clientIp || request.socket?.remoteAddress,
  };
}

function responseFields(reply: { statusCode?: number }) {
  return { statusCode: reply.statusCode };
}

export function createServiceLogger(level: string, stream?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: withoutApiKeys },
      serializers: { req: requestFields, res: responseFields, err: pino.stdSerializers.err },
    },
    stream,
  );
}

export function requestLoggerFactory(logger: Logger) {
  return (_fastifysOwn: unknown, bindings: pino.Bindings, options: pino.ChildLoggerOptions) =>
    lazyRequestLogger(logger, bindings, options);
}

/** Fastify's own lines, less the two per request that the access log replaces. */
export class ServiceLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}

/** At a level quieter than `info` no hook is added, so requests pay nothing for it. */
export function registerAccessLog(app: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled('info')) return;
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
}
