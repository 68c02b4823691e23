import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Resolver } from '../../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../../dns/target-policy.ts';

/**
 * A GET over HTTP(S) that resolves host names through the project's resolver and connects to the
 * address it checked, never asking the system resolver: the same rule as every other outgoing
 * connection (WHOIS, TLS checks). Redirects are followed by hand so each new host is checked too.
 */

export type HttpGetFailureKind =
  | 'bad-url'
  | 'dns'
  | 'forbidden'
  | 'timeout'
  | 'refused'
  | 'tls'
  | 'too-large'
  | 'redirects'
  | 'port'
  | 'network';

export class HttpGetError extends Error {
  override name = 'HttpGetError';
  readonly kind: HttpGetFailureKind;
  readonly url: string;
  readonly address: string | null;

  constructor(kind: HttpGetFailureKind, url: string, address: string | null, message: string) {
    super(message);
    this.kind = kind;
    this.url = url;
    this.address = address;
  }
}

export interface HttpGetOptions {
  resolver: Resolver;
  /** Checked on every host connected to, redirects included; null for the operator's own URLs. */
  policy: TargetPolicy | null;
  /** Ports a URL may name, redirects included (RDAP: 443 and 80); absent: any. */
  ports?: readonly number[];
  /** Bounds the whole request: resolution, redirects, and reading the body. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  headers?: Record<string, string>;
  /** PEM certificates that replace Node's bundled roots (tests trust their own CA this way). */
  ca?: readonly string[];
}

export interface HttpGetResult {
  /** The URL that answered, after redirects. */
  url: string;
  address: string;
  status: number;
  contentType: string | null;
  body: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function socketFailure(error: NodeJS.ErrnoException, url: string, address: string): HttpGetError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return new HttpGetError('refused', url, address, 'connection refused');
  // OpenSSL's verification codes (CERT_HAS_EXPIRED, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...) and Node's.
  if (/^ERR_(SSL|TLS)_|CERT|SELF_SIGNED|UNABLE_TO_/.test(code)) {
    return new HttpGetError('tls', url, address, `TLS failed: ${error.message}`);
  }
  return new HttpGetError('network', url, address, `${code || 'network error'}: ${error.message}`);
}

async function resolveUrlHost(url: URL, options: HttpGetOptions, signal: AbortSignal): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const abandoned = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
  );
  let resolution: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    resolution = await Promise.race([
      resolveTarget(host, { resolver: options.resolver, policy: options.policy ?? { allowPrivate: true } }),
      abandoned,
    ]);
  } catch (error) {
    if (signal.aborted) throw new HttpGetError('timeout', url.href, null, `could not resolve ${host} in time`);
    throw error;
  }
  if (!resolution.ok) {
    throw new HttpGetError(resolution.reason === 'forbidden' ? 'forbidden' : 'dns', url.href, null, resolution.message);
  }
  return resolution.address;
}

function requestOnce(
  url: URL,
  address: string,
  options: HttpGetOptions,
  signal: AbortSignal,
): Promise<Omit<HttpGetResult, 'url' | 'address'> & { location: string | null }> {
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(
      {
        host: address,
        port: urlPort(url),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, 'user-agent': 'netinfo', ...options.headers },
        signal,
        agent: false,
        ...(secure ? { servername: isIP(host) === 0 ? host : '', ...(options.ca ? { ca: [...options.ca] } : {}) } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            request.destroy();
            reject(new HttpGetError('too-large', url.href, address, `body larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers['content-type'] ?? null,
            location: response.headers.location ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error: NodeJS.ErrnoException) => reject(socketFailure(error, url.href, address)));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(new HttpGetError('timeout', url.href, address, 'no complete answer in time'));
      else reject(socketFailure(error, url.href, address));
    });
    request.end();
  });
}

function urlPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** GETs `href`, following up to `maxRedirects` redirects; any status is a result, failures throw HttpGetError. */
export async function httpGet(href: string, options: HttpGetOptions): Promise<HttpGetResult> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const maxRedirects = options.maxRedirects ?? 3;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new HttpGetError('bad-url', href, null, 'not a URL');
  }
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new HttpGetError('bad-url', url.href, null, `cannot follow a ${url.protocol} URL`);
    }
    const port = urlPort(url);
    if (options.ports !== undefined && !options.ports.includes(port)) {
      throw new HttpGetError(
        'port',
        url.href,
        null,
        `${redirects > 0 ? `redirected to ${url.href}, not followed` : 'not asked'}: port ${port} is not one of the ports connected to (${options.ports.join(', ')})`,
      );
    }
    const address = await resolveUrlHost(url, options, signal);
    const answer = await requestOnce(url, address, options, signal);
    if (!REDIRECTS.has(answer.status) || answer.location === null) {
      return { url: url.href, address, status: answer.status, contentType: answer.contentType, body: answer.body };
    }
    if (redirects >= maxRedirects) {
      throw new HttpGetError('redirects', url.href, address, `more than ${maxRedirects} redirects`);
    }
    url = new URL(answer.location, url);
  }
}
