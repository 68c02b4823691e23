import type { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { sharedWhileInFlight } from '../cache/in-flight.ts';
import type { Resolver } from '../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../dns/target-policy.ts';
import { type CertificateFacts, describeCertificate, displayName, isoSeconds } from './certificate.ts';
import type { TlsTarget } from './target.ts';
import { judgeChainTrust, loadTrustStore, type TrustStore } from './trust.ts';
import { daysRemaining, findValidationProblems, type ValidationProblem } from './validation.ts';

/** One certificate of the chain, from the server's certificate up to the root. */
export interface ChainEntry {
  subject: string;
  issuer: string;
  valid_to: string;
  fingerprint: string;
}

export interface TlsCheckResult extends CertificateFacts {
  host: string;
  /** The server name sent in the handshake; null for an IP address (no SNI is sent). */
  sni: string | null;
  /** The address connected to (resolved once, checked by the target policy). */
  address: string;
  port: number;
  valid: boolean;
  validation_error: ValidationProblem['code'] | null;
  validation_errors: ValidationProblem[];
  days_remaining: number;
  protocol: string | null;
  cipher: string | null;
  chain: ChainEntry[];
}

export type TlsCheckFailure =
  | 'forbidden'
  | 'no-address'
  | 'dns'
  | 'timeout'
  | 'refused'
  | 'unreachable'
  | 'not-tls'
  | 'handshake';

export class TlsCheckError extends Error {
  override name = 'TlsCheckError';
  readonly kind: TlsCheckFailure;

  constructor(kind: TlsCheckFailure, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface TlsCheckerOptions {
  resolver: Resolver;
  policy: TargetPolicy;
  /** The port connected to when the target names none (TLS_CHECK_PORT). */
  port: number;
  /** Bounds the whole check: resolution, connection and handshake. */
  timeoutMs: number;
  /** PEM certificates that replace Node's bundled Mozilla roots (tests trust their own CA this way). */
  trustedCertificates?: readonly string[];
  now?: () => number;
}

export interface TlsChecker {
  check(target: TlsTarget): Promise<TlsCheckResult>;
}

type Handshake = {
  leaf: X509Certificate;
  chain: X509Certificate[];
  authorizationError: string | null;
  protocol: string | null;
  cipher: string | null;
};

/**
 * The chain the server sent, its own certificate first, from the X509Certificate issuer links
 * (once getPeerX509Certificate() has been called, getPeerCertificate(true) no longer returns it).
 */
function readChain(leaf: X509Certificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: X509Certificate | undefined = leaf;
  while (current && !seen.has(current.fingerprint256) && chain.length < 10) {
    seen.add(current.fingerprint256);
    chain.push(current);
    current = current.issuerCertificate;
  }
  return chain;
}

/**
 * What OpenSSL said, without its error-queue dressing: its messages carry a thread id, the error
 * code, the function and the source file and line of Node's OpenSSL build
 * (`40AD81...:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/...c:77:`),
 * of no use to a caller. Node gives the reason itself on `reason`.
 */
function opensslReason(error: NodeJS.ErrnoException): string {
  const { reason } = error as { reason?: unknown };
  if (typeof reason === 'string' && reason !== '') return reason;
  const fields = error.message.trim().split(':');
  // thread:error:code:library:function:reason:file:line:
  return fields.length >= 6 && fields[1] === 'error' ? (fields[5] ?? error.message) : error.message.trim();
}

function handshakeFailure(error: NodeJS.ErrnoException, where: string, secureStarted: boolean): TlsCheckError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return new TlsCheckError('refused', `${where}: connection refused`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new TlsCheckError('unreachable', `${where}: unreachable (${code})`);
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|UNKNOWN_PROTOCOL|RECORD_LAYER/.test(code)) {
    return new TlsCheckError('not-tls', `${where} does not speak TLS (OpenSSL: ${opensslReason(error)})`);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || !secureStarted) {
    return new TlsCheckError(
      'not-tls',
      `${where} closed the connection during the TLS handshake (${code || error.message}); it may not speak TLS on this port`,
    );
  }
  return new TlsCheckError('handshake', `${where}: TLS handshake failed (${code || 'error'}: ${opensslReason(error)})`);
}

function handshake(
  target: { host: string; sni: string | null; port: number },
  address: string,
  options: TlsCheckerOptions,
  signal: AbortSignal,
): Promise<Handshake> {
  const where =
    target.host === address ? `${address} port ${target.port}` : `${target.host} (${address}) port ${target.port}`;
  return new Promise((resolve, reject) => {
    let connected = false;
    const socket = tls.connect({
      host: address,
      port: target.port,
      // No SNI for an address: Node would send none for an IP literal anyway, and warns when asked to.
      ...(target.sni === null ? {} : { servername: target.sni }),
      // The certificate is inspected whatever it is; validity is judged after the handshake.
      rejectUnauthorized: false,
      ...(options.trustedCertificates ? { ca: [...options.trustedCertificates] } : {}),
    });
    const fail = (error: TlsCheckError) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(error);
    };
    const onAbort = () =>
      fail(
        new TlsCheckError(
          'timeout',
          connected
            ? `${where}: no TLS handshake within ${options.timeoutMs} ms`
            : `${where}: could not connect within ${options.timeoutMs} ms`,
        ),
      );
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('connect', () => {
      connected = true;
    });
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      const leaf = socket.getPeerX509Certificate();
      if (!leaf) {
        fail(new TlsCheckError('handshake', `${where} completed the handshake without a certificate`));
        return;
      }
      // Node sets this to OpenSSL's code ('CERT_HAS_EXPIRED'), a string despite its declared type.
      const authorizationError = socket.authorizationError as Error | string | undefined;
      resolve({
        leaf,
        chain: readChain(leaf),
        authorizationError:
          authorizationError === undefined || authorizationError === null
            ? null
            : typeof authorizationError === 'string'
              ? authorizationError
              : authorizationError.message,
        protocol: socket.getProtocol(),
        cipher: socket.getCipher()?.name ?? null,
      });
      socket.end();
      socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => fail(handshakeFailure(error, where, connected)));
    socket.on('end', () =>
      fail(
        new TlsCheckError(
          'not-tls',
          `${where} closed the connection during the TLS handshake; it may not speak TLS on this port`,
        ),
      ),
    );
  });
}

async function resolveHost(host: string, options: TlsCheckerOptions, signal: AbortSignal): Promise<string> {
  const abandoned = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
  );
  let resolution: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    resolution = await Promise.race([
      resolveTarget(host, { resolver: options.resolver, policy: options.policy }),
      abandoned,
    ]);
  } catch (error) {
    if (signal.aborted) throw new TlsCheckError('timeout', `could not resolve ${host} within ${options.timeoutMs} ms`);
    throw error;
  }
  if (resolution.ok) return resolution.address;
  const kind =
    resolution.reason === 'forbidden' ? 'forbidden' : resolution.reason === 'no-address' ? 'no-address' : 'dns';
  throw new TlsCheckError(kind, resolution.message);
}

export function createTlsChecker(options: TlsCheckerOptions): TlsChecker {
  const now = options.now ?? Date.now;
  // Parsed once: the default store holds a few hundred roots.
  let store: TrustStore | null = null;
  // Checks of one host at the same moment share one resolution and handshake.
  const inFlight = sharedWhileInFlight<string, TlsCheckResult>();
  return {
    check: (target) => {
      const port = target.port ?? options.port;
      return inFlight(`${target.host} ${port}`, () => checkOnce({ host: target.host, sni: target.sni, port }));
    },
  };

  async function checkOnce(target: { host: string; sni: string | null; port: number }): Promise<TlsCheckResult> {
    const { host } = target;
    const signal = AbortSignal.timeout(options.timeoutMs);
    const address = await resolveHost(host, options, signal);
    const peer = await handshake(target, address, options, signal);
    const facts = describeCertificate(peer.leaf);
    const time = now();
    const nameError = tls.checkServerIdentity(host, peer.leaf.toLegacyObject());
    store ??= loadTrustStore(options.trustedCertificates);
    const walked = judgeChainTrust(peer.chain, store);
    const problems = findValidationProblems({
      host,
      chainError: peer.authorizationError,
      chainTrust: walked.trust,
      nameError: nameError ? nameError.message : null,
      issuer: facts.issuer,
      validFrom: peer.leaf.validFromDate,
      validTo: peer.leaf.validToDate,
      names: facts.alt_names.length > 0 ? facts.alt_names : facts.subject ? [facts.subject] : [],
      now: time,
    });
    return {
      host,
      sni: target.sni,
      address,
      port: target.port,
      valid: problems.length === 0,
      validation_error: problems[0]?.code ?? null,
      validation_errors: problems,
      days_remaining: daysRemaining(peer.leaf.validToDate, time),
      ...facts,
      protocol: peer.protocol,
      cipher: peer.cipher,
      chain: walked.chain.map((certificate) => ({
        subject: displayName(certificate, 'subject'),
        issuer: displayName(certificate, 'issuer'),
        valid_to: isoSeconds(certificate.validToDate),
        fingerprint: certificate.fingerprint256,
      })),
    };
  }
}
