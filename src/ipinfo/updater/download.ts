import { createWriteStream } from 'node:fs';
import { copyFile, rm, stat } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { hideUrlPassword } from '../../config-values.ts';

export class UpdateError extends Error {
  override name = 'UpdateError';
}

export type Fetch = typeof fetch;

export interface DownloadOptions {
  fetch?: Fetch;
  timeoutMs: number;
  /** Bytes; a larger body is refused (a wrong URL serving something huge, or no end in sight). */
  maxBytes: number;
  /** Validators of the copy already installed, for a conditional request. */
  etag?: string;
  lastModified?: string;
}

export type DownloadResult =
  | { status: 'not-modified' }
  | { status: 'not-found' }
  | { status: 'downloaded'; bytes: number; etag?: string; lastModified?: string };

/**
 * GETs `url` into `destination` (streamed, never held in memory whole). 404 and 304 are answers;
 * any other non-2xx status, a timeout, a body over the limit or a broken connection throws an
 * UpdateError that says which, with the URL shown without its licence key. A partial file is
 * removed.
 */
export async function downloadToFile(
  url: string,
  destination: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  if (url.startsWith('file:')) return copyLocalFile(fileURLToPath(url), destination, options.maxBytes);
  const headers: Record<string, string> = { 'user-agent': 'netinfo-data-update' };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  const signal = AbortSignal.timeout(options.timeoutMs);
  const shown = redactUrl(url);
  const target = withoutCredentials(url, headers);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(target, { headers, signal, redirect: 'follow' });
  } catch (error) {
    throw new UpdateError(`${shown}: ${describeFetchError(error, options.timeoutMs)}`);
  }
  if (response.status === 304) return { status: 'not-modified' };
  if (response.status === 404) {
    await response.body?.cancel();
    return { status: 'not-found' };
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new UpdateError(`${shown}: HTTP ${response.status} ${response.statusText}`.trim());
  }
  // With a Content-Encoding, fetch decodes the body and Content-Length counts the encoded bytes.
  const encoding = response.headers.get('content-encoding');
  const declared =
    encoding && encoding !== 'identity' ? Number.NaN : Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > options.maxBytes) {
    await response.body.cancel();
    throw new UpdateError(`${shown}: ${declared} bytes is over the ${options.maxBytes}-byte limit`);
  }
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) callback(new UpdateError(`${shown}: body over the ${options.maxBytes}-byte limit`));
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      limit,
      createWriteStream(destination),
    );
  } catch (error) {
    await rm(destination, { force: true });
    if (error instanceof UpdateError) throw error;
    throw new UpdateError(`${shown}: ${describeFetchError(error, options.timeoutMs)} after ${bytes} bytes`);
  }
  if (Number.isFinite(declared) && bytes !== declared) {
    await rm(destination, { force: true });
    throw new UpdateError(`${shown}: got ${bytes} of ${declared} bytes`);
  }
  const etag = response.headers.get('etag') ?? undefined;
  const lastModified = response.headers.get('last-modified') ?? undefined;
  return { status: 'downloaded', bytes, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** An operator's file (RPKI_VRP_FILE) taken like a download: copied, so its writer may replace it meanwhile. */
async function copyLocalFile(file: string, destination: string, maxBytes: number): Promise<DownloadResult> {
  try {
    const { size } = await stat(file);
    if (size > maxBytes) throw new UpdateError(`${file}: ${size} bytes is over the ${maxBytes}-byte limit`);
    await copyFile(file, destination);
    return { status: 'downloaded', bytes: size };
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    throw new UpdateError(`${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * The URL to fetch: credentials written into it (`https://user:password@host/...`, as MaxMind's
 * downloads take an account id and a licence key) go into an Authorization header instead, since
 * fetch refuses a URL that carries them. A URL that does not parse is left for fetch to refuse.
 */
function withoutCredentials(url: string, headers: Record<string, string>): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === '' && parsed.password === '') return url;
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * The URL as it may be logged and stored: a MaxMind licence key and the password of credentials in
 * the URL are replaced by `***`.
 */
export function redactUrl(url: string): string {
  return hideUrlPassword(url.replace(/(license_key=)[^&]*/gi, '$1***'));
}

/**
 * A text (a URL, an error message) with the licence key masked wherever it appears: the
 * `{license_key}` placeholder may stand in any part of any URL, and error messages can quote a URL
 * (fetch's "Failed to parse URL from ..."), so masking one parameter name is not enough.
 */
export function hideLicenseKey(text: string, key: string | null): string {
  let hidden = redactUrl(text);
  if (key) for (const form of new Set([key, encodeURIComponent(key)])) hidden = hidden.replaceAll(form, '***');
  return hidden;
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') {
    return `no complete answer within ${timeoutMs} ms`;
  }
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
