import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { hookList } from './route-config.ts';

/**
 * Answers smaller than this are sent as they are (measured on /api/v1/json, docs/performance.md):
 * its answers are 150-450 bytes, which gzip or brotli shorten by 10-150 bytes, while compressing
 * one multiplies the instructions of the whole request by 3.6 (brotli) to 4.5 (gzip): a zlib
 * context is set up per call. And such a response (with its ~600 bytes of headers) fits one TCP
 * segment either way, so a client gains no time. From 1 KiB the saving is hundreds of bytes and
 * grows with the answer (the OpenAPI document, 115 KB: about 7 times smaller).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Never `text/event-stream`, whose events must not wait in a compressor. */
const COMPRESSIBLE =
  /^(?:text\/(?!event-stream)|application\/(?:[\w.+-]*\+)?json|application\/javascript|image\/svg\+xml)/;

/** Brotli at quality 4: 11, zlib's default, is ten times slower for a few per cent (Cloudflare's measurements). */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

export type ContentCoding = 'br' | 'gzip';

/** RFC 9110 section 12.5.3; br on a tie. Undefined: send the identity. */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.toLowerCase().split(',')) {
    const [name = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(weight) ? weight : 0);
  }
  const any = weights.get('*') ?? 0;
  const br = weights.get('br') ?? any;
  const gzip = weights.get('gzip') ?? any;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

function appendVary(reply: FastifyReply, name: string): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined ? name : `${String(vary)}, ${name}`);
}

function compressAnswer(threshold: number) {
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload?: unknown) => void,
  ) => {
    // The size first: most answers (every /json) stop here, before any header is read.
    if (typeof payload === 'string') {
      // A string's UTF-8 length is at least its length: measured only when that leaves it in doubt.
      if (payload.length < threshold && (payload.length * 3 < threshold || Buffer.byteLength(payload) < threshold))
        return done(null, payload);
    } else if (!Buffer.isBuffer(payload) || payload.length < threshold) {
      return done(null, payload);
    }
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !COMPRESSIBLE.test(type) || reply.hasHeader('content-encoding')) {
      return done(null, payload);
    }
    if (reply.statusCode === 206 || reply.hasHeader('content-range')) return done(null, payload);
    // The answer depends on Accept-Encoding from here on, for a cache too.
    appendVary(reply, 'Accept-Encoding');
    const coding = chooseCoding(request.headers['accept-encoding']);
    if (coding === undefined) return done(null, payload);
    const compressed = coding === 'br' ? brotliCompressSync(payload, BROTLI) : gzipSync(payload);
    reply.header('content-encoding', coding);
    reply.removeHeader('content-length');
    done(null, compressed);
  };
}

/**
 * Compressed in one call: every answer here is buffered. Never:
 * - the SSE streams: they take the response over (http/sse.ts), so no onSend step sees them, and
 *   `text/event-stream` is not a compressible type here either;
 * - answers that carry a secret beside text a third party might steer (BREACH): the account API
 *   (CSRF tokens, new keys) and the dashboard page, the routes `uncompressed` picks;
 * - the errors answered before routing (404, 414...): small, and not worth a step on every route.
 * Request bodies are never decompressed. Must be registered before the routes: it joins each
 * route's onSend as the route is added, so the excluded routes pay nothing.
 */
export function registerCompression(
  app: FastifyInstance,
  options: { threshold: number; uncompressed: (url: string) => boolean },
): void {
  const step = compressAnswer(options.threshold);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (options.uncompressed(route.url)) return;
    route.onSend = [...hookList(route.onSend), step];
  });
}
