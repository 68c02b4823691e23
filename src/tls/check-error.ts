/** Why a /ssl check could not report a certificate; the route turns each kind into a 400 or a 502. */
export type TlsCheckFailure =
  | 'forbidden'
  | 'no-address'
  | 'dns'
  | 'timeout'
  | 'refused'
  | 'unreachable'
  | 'starttls'
  | 'not-tls'
  | 'handshake';

export class TlsCheckError extends Error {
  override name = 'TlsCheckError';
  readonly kind: TlsCheckFailure;
  /** Node's code for a failed handshake ('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION'), when there is one. */
  readonly code: string | null;

  constructor(kind: TlsCheckFailure, message: string, code: string | null = null) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}
