import type tls from 'node:tls';
import { TlsCheckError } from './check-error.ts';
import { type Endpoint, startTls } from './connection.ts';

export const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

/** Per version: true the server completed a handshake at it, false it refused, null not testable. */
export type ProtocolSupport = Record<TlsVersion, boolean | null>;

/**
 * Node's OpenSSL 3 refuses TLSv1 and TLSv1.1 on the client side at its default security level
 * (1 or 2: no protocols available), and its default cipher list has none of their suites; level 0
 * and the whole cipher list let the client offer them. Only these probes use it: the main check
 * keeps Node's defaults, so `valid` is judged as a modern client would.
 */
const PROBE_CIPHERS = 'ALL:@SECLEVEL=0';

/** Errors raised by our side before anything reached the server: the version cannot be tried. */
const CLIENT_CANNOT_TRY = new Set(['ERR_SSL_NO_PROTOCOLS_AVAILABLE', 'ERR_SSL_NO_CIPHERS_AVAILABLE']);

/**
 * One handshake at exactly `version`. A handshake refused by the server (an alert, a close, a reply
 * in another version) is false; a connection, STARTTLS exchange or time limit that fails before the
 * ClientHello could be answered says nothing about the version, and is null, like a version our
 * OpenSSL cannot offer.
 */
export async function probeVersion(
  endpoint: Endpoint,
  version: TlsVersion,
  signal: AbortSignal,
  timeoutMs: number,
  trust: Pick<tls.ConnectionOptions, 'ca'>,
): Promise<boolean | null> {
  try {
    const { socket } = await startTls(
      endpoint,
      { ...trust, minVersion: version, maxVersion: version, ciphers: PROBE_CIPHERS },
      signal,
      timeoutMs,
    );
    const agreed = socket.getProtocol() === version;
    socket.destroy();
    return agreed;
  } catch (error) {
    if (!(error instanceof TlsCheckError)) throw error;
    if (error.kind === 'not-tls') return false;
    if (error.kind !== 'handshake') return null;
    return error.code !== null && CLIENT_CANNOT_TRY.has(error.code) ? null : false;
  }
}

/** Every version at once, each on its own connection, so the whole costs about one handshake's time. */
export async function probeProtocols(
  endpoint: Endpoint,
  signal: AbortSignal,
  timeoutMs: number,
  trust: Pick<tls.ConnectionOptions, 'ca'>,
): Promise<ProtocolSupport> {
  const results = await Promise.all(
    TLS_VERSIONS.map((version) => probeVersion(endpoint, version, signal, timeoutMs, trust)),
  );
  return Object.fromEntries(TLS_VERSIONS.map((version, index) => [version, results[index] ?? null])) as ProtocolSupport;
}
