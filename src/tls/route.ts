import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { TlsCheckError, type TlsChecker } from './inspect.ts';
import { parseTlsTarget } from './target.ts';
import { VALIDATION_CODES } from './validation.ts';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const isoDate = (description: string) =>
  Type.String({ description: `${description} ISO 8601 UTC, \`YYYY-MM-DDThh:mm:ssZ\`.` });

export const SslAnswer = Type.Object(
  {
    host: Type.String({
      description:
        'The host checked: a domain name (IDN as punycode, lower case) or an IP address; the name the certificate is matched against (an address is matched against its IP address SANs).',
    }),
    sni: Type.Union([Type.String(), Type.Null()], {
      description:
        'The server name sent in the handshake (SNI): the domain name; null when `host` is an IP address, which is connected to without SNI (RFC 6066 allows no address there), so a server hosting several names answers with its default certificate.',
    }),
    address: Type.String({ description: 'The IP address connected to.' }),
    port: Type.Integer({
      description: 'The port connected to: the one in `host` (`host:port`, a URL), else 443 (TLS_CHECK_PORT).',
    }),
    valid: Type.Boolean({
      description:
        "true only when the chain verifies against the trust store (Node's bundled Mozilla roots, plus NODE_EXTRA_CA_CERTS), the certificate names the host, and now is within its validity period.",
    }),
    validation_error: Type.Union([Type.String({ enum: VALIDATION_CODES }), Type.Null()], {
      description: `null when valid; else the main reason, one of ${VALIDATION_CODES.join(', ')} (in that order of precedence: without trust the dates and the name prove nothing).`,
    }),
    validation_errors: Type.Array(
      Type.Object(
        { code: Type.String({ enum: VALIDATION_CODES }), message: Type.String() },
        { additionalProperties: false },
      ),
      {
        description:
          'Every reason found, main one first, each with a sentence (a self-signed certificate can also be expired).',
      },
    ),
    days_remaining: Type.Integer({
      description: 'Whole days until valid_to, rounded down: 0 on the last day, negative once expired.',
    }),
    subject: nullableString("The subject's CN; null when the subject has none (certificates named only by SANs)."),
    issuer: nullableString("The issuer's CN."),
    issuer_org: nullableString("The issuer's O."),
    valid_from: isoDate('Start of validity,'),
    valid_to: isoDate('End of validity,'),
    serial: Type.String({ description: 'Upper-case hexadecimal, as `openssl x509 -serial` prints it.' }),
    fingerprint: Type.String({
      description:
        'SHA-256 of the DER certificate as upper-case hex byte pairs joined by `:` (as `openssl x509 -fingerprint -sha256`).',
    }),
    protocol: nullableString('The TLS version negotiated, e.g. `TLSv1.3`.'),
    bits: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Key size: RSA modulus length, EC curve size (256 for P-256); null for keys without one (Ed25519).',
    }),
    alt_names: Type.Array(Type.String(), {
      description:
        'Subject alternative names: DNS names and IP addresses bare, other kinds prefixed as OpenSSL prints them (`email:...`).',
    }),
    key_type: Type.String({ description: '`RSA`, `EC`, `Ed25519`, `RSA-PSS`, ...' }),
    key_curve: nullableString('EC keys: the curve (`P-256`).'),
    signature_algorithm: nullableString('As OpenSSL names it: `sha256WithRSAEncryption`, `ecdsa-with-SHA256`.'),
    cipher: nullableString('The cipher suite negotiated (OpenSSL name).'),
    chain: Type.Array(
      Type.Object(
        {
          subject: Type.String({ description: 'CN, or the whole subject when it has no CN.' }),
          issuer: Type.String(),
          valid_to: isoDate('End of validity,'),
          fingerprint: Type.String(),
        },
        { additionalProperties: false },
      ),
      {
        description:
          "From the server's certificate up to the root: what the server sent, completed from the trust store when the root was not sent.",
      },
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Connects to the host on port 443 (TLS_CHECK_PORT) with SNI and reports the certificate it serves.

\`host\` takes what people paste: a domain name, \`name:port\`, an https:// URL (\`https://example.com:8443/x\`
checks example.com on port 8443; path, query and fragment are ignored), or an IP address (IPv6 bare or as
\`[addr]:port\`), which is connected to without SNI (\`sni: null\`) and matched against the certificate's IP
address SANs. Digits are 0-9: fullwidth, circled and other non-ASCII digits are refused, never read as an address.

The host is resolved once through the service's resolver and the connection goes to that address (IPv4 when
the name has both); private, loopback, link-local, multicast, reserved and metadata addresses are refused
with 400 unless ALLOW_PRIVATE_TARGETS is set. An invalid certificate is still reported in full, with
\`valid: false\` and the reasons. TLS_TIMEOUT_MS bounds the whole check; connection refused, timeouts, a
server that does not speak TLS and failed handshakes are 502 with a message saying which.`;

export function registerSslRoute(app: FastifyInstance, checker: TlsChecker): void {
  app.get<{ Querystring: { host: string } }>(
    '/api/v1/ssl',
    {
      schema: {
        summary: 'The TLS certificate a host serves, and whether it is valid',
        description: DESCRIPTION,
        tags: ['tls'],
        querystring: Type.Object({
          host: Type.String({
            description:
              'A domain name (IDN allowed) or an IP address, optionally with a port (`example.com:8443`, `[2001:db8::1]:443`), or an https:// URL.',
            examples: ['example.com', 'https://example.com:8443/path', '192.0.2.1'],
          }),
        }),
        response: {
          200: okResponse(SslAnswer, 'The certificate and its validity.'),
          ...commonErrorResponses,
          ...upstreamErrorResponse,
        },
      },
    },
    async (request) => {
      const parsed = parseTlsTarget(request.query.host);
      if (!parsed.ok) throw apiErrors.invalidParameter('host', parsed.reason);
      const { host } = parsed.target;
      try {
        return await checker.check(parsed.target);
      } catch (error) {
        if (!(error instanceof TlsCheckError)) throw error;
        // A name without an address is the caller's mistake; a resolver that failed is ours (README).
        if (error.kind === 'forbidden' || error.kind === 'no-address')
          throw apiErrors.invalidParameter('host', error.message);
        throw apiErrors.upstream(`TLS check of ${host} failed: ${error.message}.`);
      }
    },
  );
}
