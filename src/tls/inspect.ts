import type { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { sharedWhileInFlight } from '../cache/in-flight.ts';
import type { Resolver } from '../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../dns/target-policy.ts';
import {
  authorizationErrorCode,
  type CertificateFacts,
  describeCertificate,
  displayName,
  sentChain,
} from './certificate.ts';
import { TlsCheckError } from './check-error.ts';
import { type Endpoint, startTls } from './connection.ts';
import { findProblems } from './problems.ts';
import { type ProtocolSupport, probeProtocols } from './protocols.ts';
import { countEmbeddedScts } from './sct.ts';
import { STARTTLS_DEFAULT_PORTS, type StarttlsProtocol } from './starttls-replies.ts';
import type { TlsTarget } from './target.ts';
import { loadTrustStore, type TrustStore } from './trust.ts';
import { daysRemaining, judgeCertificate, type ValidationProblem } from './validation.ts';

/** One certificate as the server sent it. */
export interface ChainEntry {
  subject: string;
  issuer: string;
  valid_from: string;
  valid_to: string;
  serial: string;
  fingerprint: string;
  key_type: string;
  bits: number | null;
  signature_algorithm: string | null;
}

export interface TlsCheckResult extends CertificateFacts {
  host: string;
  /** The server name sent in the handshake; null for an IP address (no SNI is sent). */
  sni: string | null;
  /** The address connected to (resolved once, checked by the target policy). */
  address: string;
  port: number;
  starttls: StarttlsProtocol | null;
  valid: boolean;
  validation_error: ValidationProblem['code'] | null;
  validation_errors: ValidationProblem[];
  days_remaining: number;
  protocol: string | null;
  cipher: string | null;
  chain: ChainEntry[];
  chain_complete: boolean;
  ocsp_stapled: boolean;
  sct_count: number | null;
  hostname_match: boolean;
  problems: string[];
  /** Only when asked for (`protocols=true`). */
  protocols?: ProtocolSupport;
}

/** A check as the route asks for it: the target as parsed, and what to do beyond the handshake. */
export interface TlsCheckRequest extends TlsTarget {
  starttls: StarttlsProtocol | null;
  protocols: boolean;
}

export interface TlsCheckerOptions {
  resolver: Resolver;
  policy: TargetPolicy;
  /** The port connected to when the target names none and no STARTTLS is asked for (TLS_CHECK_PORT). */
  port: number;
  /** Bounds the whole check: resolution, connection, STARTTLS and handshakes. */
  timeoutMs: number;
  /** PEM certificates that replace Node's bundled Mozilla roots (tests trust their own CA this way). */
  trustedCertificates?: readonly string[];
  now?: () => number;
}

export interface TlsChecker {
  check(request: TlsCheckRequest): Promise<TlsCheckResult>;
}

type Handshake = {
  leaf: X509Certificate;
  chain: X509Certificate[];
  authorizationError: string | null;
  protocol: string | null;
  cipher: string | null;
  ocspStapled: boolean;
};

async function handshake(
  endpoint: Endpoint,
  context: tls.SecureContext,
  options: TlsCheckerOptions,
  signal: AbortSignal,
  onHelloSent?: () => void,
): Promise<Handshake> {
  const { socket, ocspResponse } = await startTls(
    endpoint,
    { secureContext: context },
    signal,
    options.timeoutMs,
    onHelloSent,
  );
  try {
    const leaf = socket.getPeerX509Certificate();
    if (!leaf) throw new TlsCheckError('handshake', `${endpoint.host} completed the handshake without a certificate`);
    return {
      leaf,
      chain: sentChain(leaf),
      authorizationError: authorizationErrorCode(socket),
      protocol: socket.getProtocol(),
      cipher: socket.getCipher()?.name ?? null,
      ocspStapled: ocspResponse !== null,
    };
  } finally {
    socket.end();
    socket.destroy();
  }
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

function chainEntry(certificate: X509Certificate): ChainEntry {
  const facts = describeCertificate(certificate);
  return {
    subject: displayName(certificate, 'subject'),
    issuer: displayName(certificate, 'issuer'),
    valid_from: facts.valid_from,
    valid_to: facts.valid_to,
    serial: facts.serial,
    fingerprint: facts.fingerprint,
    key_type: facts.key_type,
    bits: facts.bits,
    signature_algorithm: facts.signature_algorithm,
  };
}

export function createTlsChecker(options: TlsCheckerOptions): TlsChecker {
  const now = options.now ?? Date.now;
  // Parsed once: the default store holds a few hundred roots.
  let store: TrustStore | null = null;
  // Made once: a context per connection would parse the trusted certificates every time.
  let context: tls.SecureContext | null = null;
  // Checks of one host at the same moment share one resolution and handshake.
  const inFlight = sharedWhileInFlight<string, TlsCheckResult>();
  return {
    check: (request) => {
      const port = request.port ?? (request.starttls ? STARTTLS_DEFAULT_PORTS[request.starttls] : options.port);
      const key = `${request.host} ${port} ${request.starttls ?? 'tls'} ${request.protocols}`;
      return inFlight(key, () => checkOnce({ ...request, port }));
    },
  };

  async function checkOnce(request: TlsCheckRequest & { port: number }): Promise<TlsCheckResult> {
    const { host } = request;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const address = await resolveHost(host, options, timeout);
    const endpoint: Endpoint = { host, sni: request.sni, address, port: request.port, starttls: request.starttls };
    // The version probes run beside the main handshake and stop when it fails. They start once its
    // ClientHello is on its way, so a server that answers one connection at a time answers it
    // first, and the probes' answers arrive while this process judges the certificate.
    const mainFailed = new AbortController();
    const signal = AbortSignal.any([timeout, mainFailed.signal]);
    context ??= tls.createSecureContext(options.trustedCertificates ? { ca: [...options.trustedCertificates] } : {});
    let probes: Promise<ProtocolSupport> | null = null;
    const startProbes = () => {
      probes = probeProtocols(endpoint, signal, options.timeoutMs);
    };
    const peer = await handshake(
      endpoint,
      context,
      options,
      timeout,
      request.protocols ? startProbes : undefined,
    ).catch((error: unknown) => {
      mainFailed.abort();
      // Their answers no longer matter; aborted, they settle at once.
      void (probes as Promise<ProtocolSupport> | null)?.catch(() => {});
      throw error;
    });
    const answer = judge(request, address, peer);
    const protocols = await (probes as Promise<ProtocolSupport> | null);
    return protocols ? { ...answer, protocols } : answer;
  }

  function judge(request: TlsCheckRequest & { port: number }, address: string, peer: Handshake): TlsCheckResult {
    const { host } = request;
    const facts = describeCertificate(peer.leaf);
    const time = now();
    store ??= loadTrustStore(options.trustedCertificates);
    const {
      problems: validationProblems,
      trust,
      hostnameMatch,
      names,
    } = judgeCertificate({
      host,
      leaf: peer.leaf,
      chain: peer.chain,
      chainError: peer.authorizationError,
      store,
      now: time,
    });
    const chain = peer.chain.map(chainEntry);
    const last = peer.chain.at(-1) ?? peer.leaf;
    const anchors = store.fingerprints;
    return {
      host,
      sni: request.sni,
      address,
      port: request.port,
      starttls: request.starttls,
      valid: validationProblems.length === 0,
      validation_error: validationProblems[0]?.code ?? null,
      validation_errors: validationProblems,
      days_remaining: daysRemaining(peer.leaf.validToDate, time),
      ...facts,
      protocol: peer.protocol,
      cipher: peer.cipher,
      chain,
      chain_complete: trust === 'anchored',
      ocsp_stapled: peer.ocspStapled,
      sct_count: countEmbeddedScts(peer.leaf.raw),
      hostname_match: hostnameMatch,
      problems: findProblems({
        host,
        served: chain.map((entry) => ({
          name: entry.subject,
          key_type: entry.key_type,
          bits: entry.bits,
          signature_algorithm: entry.signature_algorithm,
          anchor: anchors.has(entry.fingerprint),
        })),
        validFrom: peer.leaf.validFromDate,
        validTo: peer.leaf.validToDate,
        hostnameMatch,
        names,
        trust,
        lastIssuer: displayName(last, 'issuer'),
        endsInRoot: last.subject === last.issuer,
        now: time,
      }),
    };
  }
}
