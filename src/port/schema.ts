import { Type } from 'typebox';
import { callerSpecific, commonErrorResponses, okResponse } from '../http/schemas.ts';
import { inFlightCapText } from '../limits/in-flight.ts';
import { PORT_CHECK_TIMEOUT_MS, PORT_CHECK_TOOL } from './tool.ts';

const REASONS = ['refused', 'timeout', 'unreachable'] as const;
const SECONDS = PORT_CHECK_TIMEOUT_MS / 1000;

export const PORT_HINT = 'a whole number from 1 to 65535';

const PortParams = Type.Object({
  n: Type.String({
    description: `The TCP port to try on your own address, 1 to 65535. Decimal digits only; leading zeros are allowed (\`0443\` is 443), as ifconfig.co reads them.`,
    examples: ['443'],
  }),
});

const ip = Type.String({
  description:
    "The caller's address, the one connected to (as /api/v1/json reports it: IPv6 in RFC 5952 form, an IPv4-mapped address as IPv4).",
});
const port = Type.Integer({ minimum: 1, maximum: 65535, description: 'The port tried.' });
const reachable = Type.Boolean({ description: 'Whether the TCP handshake completed.' });

export const PortAnswer = Type.Object(
  {
    ip,
    port,
    reachable,
    time_ms: Type.Union([Type.Number(), Type.Null()], {
      description:
        'When reachable: the connect time seen from here (the connect call to the SYN-ACK), in ms with 3 decimals; else null.',
    }),
    reason: Type.Union([Type.String({ enum: [...REASONS] }), Type.Null()], {
      description: `When not reachable, why: \`refused\` (a RST: nothing listens there, or a firewall rejects), \`timeout\` (no answer within ${SECONDS} s: the SYNs are dropped, by a firewall or a NAT that forwards nothing), \`unreachable\` (an ICMP error or no route); null when reachable.`,
    }),
  },
  { additionalProperties: false },
);

const EchoipPortAnswer = Type.Object({ ip, port, reachable }, { additionalProperties: false });

const EchoipError = Type.Object(
  {
    status: Type.Literal(400),
    error: Type.String({ description: '`invalid port: ` and the last segment of the path, as given.' }),
  },
  { additionalProperties: false },
);

const CHECK = `Tries one TCP connection from this service to the caller's own address on port \`n\` and closes it as
soon as it is established, without sending a byte; it is given ${SECONDS} s. The address is the one /api/v1/json
reports (the socket peer, or the client a trusted proxy names under TRUST_PROXY), never another: there is no
\`?ip=\` (an unknown parameter, so a 400). What answers is what the world sees at that address: a NAT router or
firewall in front of the caller answers for it.

A caller at a private, loopback, link-local, multicast, reserved or metadata address is refused with 400 and
nothing is connected, unless ALLOW_PRIVATE_TARGETS covers the address, as for every target of the service.
Counted against the limits like any /api/v1 request. ${inFlightCapText(PORT_CHECK_TOOL)}`;

export const portRouteSchema = {
  summary: 'Whether this service can open a TCP connection to the caller on a port',
  description: `${CHECK}

Every answer has the five keys: \`time_ms\` and \`reason\` are null, never left out, where they do not apply.
\`n\` outside 1-65535 or not a whole number is a 400 naming it. GET /port/{n} answers the same check in
ifconfig.co's shape, without \`time_ms\` and \`reason\`.`,
  operationId: 'getPortCheck',
  tags: ['port'],
  params: PortParams,
  response: {
    200: callerSpecific(okResponse(PortAnswer, 'Whether the port answered, and how.')),
    ...commonErrorResponses,
    400: {
      ...commonErrorResponses[400],
      description: '`n` is not a port, the query has a parameter, or the target policy refuses the caller’s address.',
    },
  },
};

export const textPortRouteSchema = {
  summary: "Whether this service can open a TCP connection to the caller on a port, as ifconfig.co's /port/{n}",
  description: `ifconfig.co's port check (mpolden/echoip's \`/port/{n}\`), byte for byte, for the scripts written for
it: \`{"ip", "port", "reachable"}\` in that order, as Go's json.MarshalIndent writes it (two spaces, no trailing
newline), \`Content-Type: application/json\`. /api/v1/port/{n} answers the same check with \`time_ms\` and
\`reason\` added.

${CHECK}

\`n\` is read as echoip reads it, and anything else is echoip's own 400, indented the same way:
\`{"status": 400, "error": "invalid port: abc"}\` (0 and 65536 too). The other errors are the service's JSON error body
(\`{"error": ...}\`, with its statuses and headers): an unknown query parameter (echoip ignores them) or a refused
caller (400), a bad API key (401), a spent limit or a full in-flight cap (429).`,
  operationId: 'getTextPort',
  tags: ['text'],
  params: PortParams,
  response: {
    200: callerSpecific(okResponse(EchoipPortAnswer, 'Whether the port answered.')),
    ...commonErrorResponses,
    400: {
      ...Type.Union([EchoipError, Type.Ref('ErrorBody')]),
      description:
        "`n` is not a port: echoip's body. The query has a parameter, or the target policy refuses the caller’s address: the service's error body.",
      headers: commonErrorResponses[400].headers,
    },
  },
};
