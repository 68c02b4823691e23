import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { TLS_VERSIONS } from './client-hello.ts';
import { EXPIRY_WARNING_DAYS } from './problems.ts';
import { STARTTLS_DEFAULT_PORTS, STARTTLS_PROTOCOLS } from './starttls-replies.ts';
import { SSL_TOOL } from './tool.ts';
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
          "Every reason found, main one first, each with a sentence (a self-signed certificate can also be expired). OpenSSL stops at its first error, so the dates, the name and the chain's way to a trusted root are also checked independently.",
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
          issuer: Type.String({ description: "The issuer's CN, or its whole subject when it has no CN." }),
          valid_from: isoDate('Start of validity,'),
          valid_to: isoDate('End of validity,'),
          serial: Type.String({ description: 'Upper-case hexadecimal.' }),
          fingerprint: Type.String({ description: 'SHA-256, upper-case hex byte pairs joined by `:`.' }),
          key_type: Type.String({ description: '`RSA`, `EC`, `Ed25519`, ...' }),
          bits: Type.Union([Type.Integer(), Type.Null()], { description: 'Key size, as `bits` above.' }),
          signature_algorithm: nullableString('As OpenSSL names it: `sha256WithRSAEncryption`.'),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'The certificates exactly as the server sent them, its own first; a root it did not send is not added (see `chain_complete`).',
      },
    ),
    chain_complete: Type.Boolean({
      description:
        'Whether the certificates served lead, signature by signature, to a root in the trust store without fetching anything (dates are judged separately; no AIA chasing: a browser that fetches a missing intermediate hides a problem other clients have). False for a self-signed certificate, a missing intermediate, or a root nobody trusts.',
    }),
    ocsp_stapled: Type.Boolean({
      description:
        'Whether the server stapled an OCSP response to the handshake (requested with status_request; the response is not verified).',
    }),
    sct_count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        "Signed Certificate Timestamps embedded in the server's certificate (extension 1.3.6.1.4.1.11129.2.4.2), counted, not verified; null when that extension is present but malformed. SCTs sent in the TLS extension or stapled OCSP are not counted.",
    }),
    hostname_match: Type.Boolean({
      description:
        'Whether the certificate names `host` (SAN DNS names with wildcards one label deep, or IP address SANs).',
    }),
    problems: Type.Array(Type.String(), {
      description: `Plain sentences, empty when there is nothing to say: expired, not yet valid, self-signed, name mismatch, incomplete chain, weak key (RSA or DSA under 2048 bits, EC under 256, any certificate served), SHA-1 signature (any certificate served that is not itself a trusted root, whose own signature no client checks), expires within ${EXPIRY_WARNING_DAYS} days. A weak key or SHA-1 also makes \`valid\` false: Node's OpenSSL refuses both.`,
    }),
    starttls: Type.Union([Type.String({ enum: [...STARTTLS_PROTOCOLS] }), Type.Null()], {
      description: 'The STARTTLS exchange run before the handshake, as asked; null for TLS from the first byte.',
    }),
    protocols: Type.Optional(
      Type.Object(
        Object.fromEntries(
          TLS_VERSIONS.map((version) => [
            version,
            Type.Union([Type.Boolean(), Type.Null()], {
              description: `Whether the server chooses ${version} when offered it alone.`,
            }),
          ]),
        ),
        {
          additionalProperties: false,
          description:
            "Only with `protocols=true`: per version, whether the server accepts it, from one connection per version opened beside the main handshake (after the STARTTLS exchange when one is asked for). Each sends a ClientHello offering that version alone and reads the server's first answer (TLSv1.3 with an empty key share, answered by a HelloRetryRequest): true, the server chose the version; false, it answered with an alert, another version, a close or something that is not TLS (also when it takes the version only with a cipher suite the hello does not offer: it offers RSA, ECDHE and DHE suites with AES, ChaCha20, 3DES and RC4); null, nothing could be learnt (the connection, the STARTTLS exchange or the time limit failed before the server answered). No OpenSSL handshake is made for these, so TLSv1 and TLSv1.1 are tested although Node's OpenSSL refuses to offer them at its default security level; RSA key exchange is offered first for the older versions, so that a server answers before signing anything. The probes start once the main handshake's ClientHello is sent and their answers are awaited after the certificate is judged, so a server that answers one connection at a time answers the main handshake first.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Connects to the host on port 443 (TLS_CHECK_PORT) or \`port\` with SNI, after a STARTTLS exchange when
\`starttls\` asks for one, and reports the certificate and chain it serves, with \`problems\` in plain sentences;
\`protocols=true\` adds which TLS versions it accepts.

\`host\` takes what people paste: a domain name, \`name:port\`, an https:// URL (\`https://example.com:8443/x\`
checks example.com on port 8443; path, query and fragment are ignored), or an IP address (IPv6 bare or as
\`[addr]:port\`), which is connected to without SNI (\`sni: null\`) and matched against the certificate's IP
address SANs. Other URL schemes and user names are a 400; the host is never handed to a URL parser (which reads
\`127.1\` as 127.0.0.1).

The host is resolved once through the service's resolver and the connection goes to that address (IPv4 when
the name has both); private, loopback, link-local, multicast, reserved and metadata addresses are refused
with 400 unless ALLOW_PRIVATE_TARGETS is set, whatever the port; a name without an address is the caller's 400,
a resolver that failed a 502. An invalid certificate is still reported in
full, with \`valid: false\` and the reasons. TLS_TIMEOUT_MS bounds the whole check (resolution, connection,
STARTTLS, handshakes); connection refused, timeouts, a server that does not speak TLS, a STARTTLS exchange that
gets no answer, garbage or a refusal, and failed handshakes are 502 with a message saying which step failed.
Every check is live: nothing is cached, but identical checks that arrive while one is under way share its
connection and its answer.

${inFlightCapText(SSL_TOOL)}`;

export const sslRouteSchema = {
  summary: 'The TLS certificate a host serves, and whether it is valid',
  description: DESCRIPTION,
  operationId: 'getSslCertificate',
  tags: ['tls'],
  querystring: Type.Object({
    host: Type.String({
      description:
        'A domain name or IP address, optionally with a port. IDN allowed; `example.com:8443`, `[2001:db8::1]:443`, or an https:// URL.',
      examples: ['example.com', 'https://example.com:8443/path', '192.0.2.1'],
    }),
    port: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,5}$',
        description: `The TCP port, 1-65535. Default: the port in \`host\`, else the STARTTLS protocol's own (${STARTTLS_PROTOCOLS.map((name) => `${name} ${STARTTLS_DEFAULT_PORTS[name]}`).join(', ')}), else 443 (TLS_CHECK_PORT). A port here and a different one in \`host\` is a 400.`,
      }),
    ),
    starttls: Type.Optional(
      Type.Enum(STARTTLS_PROTOCOLS, {
        type: 'string',
        description:
          'Run this protocol\'s upgrade exchange before the handshake. Exactly these lines are sent, each ended by CRLF. smtp: read the 220 greeting (multi-line `220-` replies read whole), send `EHLO [our address]` (an address literal, RFC 5321 4.1.4; 250), `STARTTLS` (220). imap: read `* OK`, send `a1 STARTTLS` (`a1 OK`; untagged lines before it are skipped). pop3: read `+OK`, send `STLS` (`+OK`). ftp: read 220 (multi-line replies read whole), send `AUTH TLS` (234). Nothing else is sent (no login, no QUIT: the connection is closed after the handshake). Any other answer, none within the time limit, a close, or bytes after the server\'s go-ahead is a 502 naming the step (`SMTP STARTTLS, STARTTLS: the server refused ("454 4.7.0 TLS not available"; 220 was needed)`); garbage is recognised at its first line.',
      }),
    ),
    protocols: Type.Optional(
      Type.Enum(['true', 'false'], {
        type: 'string',
        description: 'true: also try each TLS version on its own and report `protocols`.',
      }),
    ),
  }),
  response: {
    200: okResponse(SslAnswer, 'The certificate and its validity.'),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
  },
};
