import type { Resolver } from '../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../dns/target-policy.ts';
import { displayName, isoSeconds } from '../tls/certificate.ts';
import { loadTrustStore, type TrustStore } from '../tls/trust.ts';
import { daysRemaining, judgeCertificate, type ValidationProblem } from '../tls/validation.ts';
import type { PortRanges } from './config.ts';
import { type ExchangeResult, exchange, HttpCheckError, type PeerFacts } from './exchange.ts';
import { firstHeader, reportHeaders } from './headers.ts';
import { type CheckTarget, redirectTarget } from './target-url.ts';

export const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface HttpCheckTls {
  protocol: string | null;
  cipher: string | null;
  subject: string | null;
  issuer: string | null;
  valid_to: string | null;
  days_remaining: number | null;
  valid: boolean;
  validation_error: ValidationProblem['code'] | null;
  validation_errors: ValidationProblem[];
}

export interface HttpCheckResult {
  url: string;
  method: 'GET' | 'HEAD';
  address: string;
  status: number;
  http_version: string;
  redirects: { url: string; status: number; location: string }[];
  headers: Record<string, string>;
  timings: {
    dns: number;
    tcp: number;
    tls: number | null;
    first_byte: number;
    download: number;
    redirect: number;
    total: number;
  };
  body_bytes: number;
  body_truncated: boolean;
  body_found?: boolean;
  tls: HttpCheckTls | null;
}

/** The URL asked cannot be checked: the caller's mistake (a 400), found before anything was sent. */
export class HttpCheckRefusal extends Error {
  override name = 'HttpCheckRefusal';
}

export interface HttpCheckerOptions {
  resolver: Resolver;
  policy: TargetPolicy;
  ports: PortRanges;
  /** Bounds the whole check: every redirect, resolution, connection and the body. */
  timeoutMs: number;
  maxBodyBytes: number;
  /** PEM certificates that replace Node's bundled Mozilla roots (tests trust their own CA this way). */
  trustedCertificates?: readonly string[];
  /** Wall clock for days_remaining. */
  now?: () => number;
  /** Monotonic milliseconds for the timings (performance.now). */
  clock?: () => number;
}

export interface HttpChecker {
  /** `abandoned`: the caller left; the check stops at once (sockets closed) rather than at its time limit. */
  /** `find`: text to look for in the final body (`body_found`). */
  check(target: CheckTarget, method: 'GET' | 'HEAD', abandoned?: AbortSignal, find?: string): Promise<HttpCheckResult>;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The certificate judged after the timings stop, as /ssl judges it (tls/validation.ts): the chain
 * against the trust store, the dates, the name. A server that sent no certificate (an anonymous
 * cipher, which Node does not offer by default) has no chain to verify.
 */
function describePeer(peer: PeerFacts, host: string, now: number, store: TrustStore): HttpCheckTls {
  const certificate = peer.certificate;
  const problems: ValidationProblem[] = certificate
    ? judgeCertificate({ host, leaf: certificate, chain: peer.chain, chainError: peer.authorizationError, store, now })
        .problems
    : [{ code: 'untrusted_chain', message: 'the server sent no certificate' }];
  return {
    protocol: peer.protocol,
    cipher: peer.cipher,
    subject: certificate ? displayName(certificate, 'subject') : null,
    issuer: certificate ? displayName(certificate, 'issuer') : null,
    valid_to: certificate ? isoSeconds(certificate.validToDate) : null,
    days_remaining: certificate ? daysRemaining(certificate.validToDate, now) : null,
    valid: problems.length === 0,
    validation_error: problems[0]?.code ?? null,
    validation_errors: problems,
  };
}

export function createHttpChecker(options: HttpCheckerOptions): HttpChecker {
  const clock = options.clock ?? (() => performance.now());
  const now = options.now ?? Date.now;
  // Read on the first https check (parsing the roots takes a few ms), as /ssl does.
  let store: TrustStore | null = null;
  const trustStore = () => {
    store ??= loadTrustStore(options.trustedCertificates);
    return store;
  };

  /** The address to connect to, checked by the policy; the first URL's refusals are the caller's. */
  async function resolveHop(target: CheckTarget, first: boolean, signal: AbortSignal): Promise<string> {
    const abandoned = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    );
    let resolution: Awaited<ReturnType<typeof resolveTarget>>;
    try {
      resolution = await Promise.race([
        resolveTarget(target.host, { resolver: options.resolver, policy: options.policy }),
        abandoned,
      ]);
    } catch (error) {
      if (signal.aborted)
        throw new HttpCheckError('dns', `could not resolve ${target.host} within ${options.timeoutMs} ms`);
      throw error;
    }
    if (resolution.ok) return resolution.address;
    if (first && resolution.reason !== 'dns-failure') throw new HttpCheckRefusal(resolution.message);
    if (resolution.reason === 'forbidden') {
      throw new HttpCheckError('redirect', `the redirect to ${target.url.href} is refused: ${resolution.message}`);
    }
    throw new HttpCheckError('dns', resolution.message);
  }

  return {
    async check(first, method, abandoned, find) {
      const timeLimit = AbortSignal.timeout(options.timeoutMs);
      const signal = abandoned === undefined ? timeLimit : AbortSignal.any([timeLimit, abandoned]);
      const started = clock();
      const redirects: HttpCheckResult['redirects'] = [];
      let target = first;
      for (;;) {
        // The first hop starts with the check: `redirect` (the time before the final hop) is then 0
        // exactly, not the few microseconds between two clock reads.
        const hopStarted = redirects.length === 0 ? started : clock();
        const address = await resolveHop(target, redirects.length === 0, signal);
        const resolved = clock();
        const answer: ExchangeResult = await exchange(target, address, {
          method,
          maxBodyBytes: options.maxBodyBytes,
          ...(find === undefined ? {} : { find: Buffer.from(find) }),
          headersOnly: (status, headers) => REDIRECT_STATUSES.has(status) && firstHeader(headers, 'location') !== null,
          signal,
          timeoutMs: options.timeoutMs,
          clock,
          ...(options.trustedCertificates ? { ca: options.trustedCertificates } : {}),
        });
        const location = firstHeader(answer.headers, 'location');
        if (REDIRECT_STATUSES.has(answer.status) && location !== null) {
          redirects.push({ url: target.url.href, status: answer.status, location });
          if (redirects.length > MAX_REDIRECTS) {
            throw new HttpCheckError('redirect', `more than ${MAX_REDIRECTS} redirects`);
          }
          const next = redirectTarget(location, target.url, options.ports);
          if (!next.ok) throw new HttpCheckError('redirect', `the redirect from ${target.url.href} ${next.reason}`);
          target = next.target;
          continue;
        }
        const finished = clock();
        return {
          url: target.url.href,
          method,
          address,
          status: answer.status,
          http_version: answer.httpVersion,
          redirects,
          headers: reportHeaders(answer.headers),
          timings: {
            dns: round(resolved - hopStarted),
            tcp: round(answer.tcp),
            tls: answer.tls === null ? null : round(answer.tls),
            first_byte: round(answer.firstByte),
            download: round(answer.download),
            redirect: round(hopStarted - started),
            total: round(finished - started),
          },
          body_bytes: answer.bodyBytes,
          body_truncated: answer.bodyTruncated,
          ...(answer.bodyFound === null ? {} : { body_found: answer.bodyFound }),
          tls: answer.peer ? describePeer(answer.peer, target.host, now(), trustStore()) : null,
        };
      }
    },
  };
}
