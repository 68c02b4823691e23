import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { FastifyInstance } from 'fastify';

/**
 * What a terminal would obey rather than show: the C0 controls except newline and tab (ESC starts
 * CSI and OSC sequences that move the cursor, retitle the window or write the clipboard; BEL rings;
 * CR rewrites the line), DEL, and the C1 range, which some terminals read as CSI and OSC too.
 * Tab only moves the cursor, and text of the service (WHOIS replies) is laid out with it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it exists to find.
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the same set, to test before replacing.
const HAS_TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Tested first: a replace with a callback costs about 400 ns even when nothing matches, a test 50. */
export function escapeControlCharacters(text: string): string {
  if (!HAS_TERMINAL_CONTROL.test(text)) return text;
  return text.replace(TERMINAL_CONTROLS, (control) => `\\x${control.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * JSON escapes C0 controls itself (`\u001b`) but writes DEL and C1 raw, and `curl host/json` puts
 * them on a terminal. Raw, they can only stand inside a JSON string, where `\u009b` is the same
 * character: the escape changes nothing a JSON reader sees.
 */
const RAW_IN_JSON = /[\u007f-\u009f]/g;
const HAS_RAW_IN_JSON = /[\u007f-\u009f]/;

export function escapeControlCharactersInJson(json: string): string {
  if (!HAS_RAW_IN_JSON.test(json)) return json;
  return json.replace(RAW_IN_JSON, (control) => `\\u00${control.charCodeAt(0).toString(16)}`);
}

function mediaType(contentType: unknown): string {
  return typeof contentType === 'string' ? contentType.trimStart().toLowerCase() : '';
}

/** Characters split across chunks are joined first. */
function escapingStream(): Transform {
  const decoder = new StringDecoder('utf8');
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, escapeControlCharacters(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    },
    flush(done) {
      done(null, escapeControlCharacters(decoder.end()));
    },
  });
}

/**
 * Every text/plain and JSON answer passes here, however its route set its type (Fastify gives a bare
 * string text/plain too): escaping per route would miss the next route that prints a name, a WHOIS
 * line or a header. A root `onSend` step, so it runs before the routes' own (compression would hide
 * the text).
 */
export function registerPlainTextEscaping(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Neither escape changes a string without these, and most answers have none: they go on before
    // any header is read (3.7k of /api/v1/ipv6's 96.5k instructions a request went to this step).
    if (typeof payload === 'string' && !HAS_TERMINAL_CONTROL.test(payload)) return done(null, payload);
    const type = mediaType(reply.getHeader('content-type'));
    if (type.startsWith('application/json') && typeof payload === 'string') {
      return done(null, escapeControlCharactersInJson(payload));
    }
    if (!type.startsWith('text/plain')) return done(null, payload);
    if (typeof payload === 'string') return done(null, escapeControlCharacters(payload));
    if (Buffer.isBuffer(payload)) return done(null, escapeControlCharacters(payload.toString('utf8')));
    if (payload !== null && typeof (payload as NodeJS.ReadableStream)?.pipe === 'function') {
      return done(null, (payload as NodeJS.ReadableStream).pipe(escapingStream()));
    }
    done(null, payload);
  });
}
