import { Type } from 'typebox';
import { commonErrorResponses } from '../http/schemas.ts';
import { attributionResponseHeader } from '../ipinfo/attribution.ts';
import { IP_PARAMETER_HINT } from '../ipinfo/ip-param.ts';
import { jsonResponses } from '../ipinfo/schema.ts';
import { TEXT_VALUES, type TextPath } from './text-answers.ts';

const IpParameter = Type.Optional(
  Type.String({
    maxLength: 100,
    description: `Ask about this address instead of the caller's: ${IP_PARAMETER_HINT}.`,
  }),
);
const IpQuery = Type.Object({ ip: IpParameter }, { additionalProperties: false });

const textResponse = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/** Terminals read these paths, so errors are text too, and nothing a terminal would obey gets through. */
const TEXT_RULES =
  'Every answer is text/plain, errors included (one line saying what happened, with the status and headers of the JSON API). Control characters from any source (a reverse DNS name, WHOIS or TXT text, a header) never reach the terminal: C0 controls other than newline and tab, DEL and the C1 range U+0080-U+009F are written as `\\xNN` (their code point in two hex digits), in every text/plain answer of the service. `Cache-Control: no-store`; the same CORS and request-id headers as the JSON API.';

const FREE_ADDRESS_RULE =
  'Not counted against the limits: repeating an address costs nothing, so the answer comes even when the caller has spent its hourly or daily window (and carries no X-RateLimit-* headers).';

const TEXT_RESPONSES = {
  200: {
    ...textResponse(
      'The value and a newline; an empty line (still 200) where the data has none for the address, as on ifconfig.co.',
    ),
    headers: attributionResponseHeader,
  },
  400: textResponse('`ip` is not an address, or the query has an unknown parameter: one line saying why.'),
  401: {
    ...textResponse('The API key is malformed, unknown or revoked: one line saying which.'),
    headers: { 'WWW-Authenticate': commonErrorResponses[401].headers['WWW-Authenticate'] },
  },
  429: {
    ...textResponse(
      'A limit is spent: one line saying which and when it resets, with the X-RateLimit-* and Retry-After headers of the JSON API.',
    ),
    headers: commonErrorResponses[429].headers,
  },
};

const TEXT_EXAMPLES: Partial<Record<TextPath, string>> = {
  asn: ': `AS15169`',
  coordinates:
    ': `37.751000,-97.822000`, six decimals each; `0.000000,0.000000` where the data has no location, as ifconfig.co prints it',
  country:
    ": the country's English name, else that of the country where the network is registered, as ifconfig.co reads it",
  'country-iso': ': `US`; like /country, the registered country where the record has no other',
};

/** Netinfo's own paths, which ifconfig.co does not serve: written in the same form, so a script reads them alike. */
const EXTRAS: ReadonlySet<TextPath> = new Set(['region', 'hostname', 'timezone']);

const operationName = (path: TextPath) =>
  path
    .split('-')
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('');

/** `/ip` is neither looked up nor counted: no 401, 404 or 429. */
export function textValueRouteSchema(path: TextPath) {
  const free = path === 'ip';
  const origin = EXTRAS.has(path)
    ? "netinfo's own path (ifconfig.co has none), in the same form"
    : 'byte for byte what ifconfig.co answers for the same databases (test/fixtures/echoip)';
  return {
    summary: `The ${TEXT_VALUES[path].what} of the caller (or of ?ip=), as one line of text`,
    description: `Plain text for terminals (\`curl host/${path}\`${TEXT_EXAMPLES[path] ?? ''}): ${origin}. From the same data as /api/v1/json; \`?ip=\` parses the address as /api/v1/json/{ip} does.${path === 'hostname' ? ' Only this path waits for the reverse lookup.' : ''} ${
      free ? FREE_ADDRESS_RULE : 'Counted against the limits like an /api/v1 request.'
    } ${TEXT_RULES}`,
    operationId: `getText${operationName(path)}`,
    tags: ['text'],
    querystring: IpQuery,
    response: (free ? { 200: TEXT_RESPONSES[200], 400: TEXT_RESPONSES[400] } : TEXT_RESPONSES) as typeof TEXT_RESPONSES,
  };
}

const ECHOIP_JSON_FIELDS =
  "`ip`, `ip_decimal` (the address as one integer), `country`, `country_iso`, `country_eu` (always present), `region_name`, `region_code`, `metro_code` (US only), `zip_code`, `city`, `latitude`, `longitude`, `time_zone`, `asn` (`AS15169`), `asn_org`, `hostname` (the reverse DNS name, when one arrives in time) and `user_agent` (`product`, `version`, `comment`, `raw_value`: the User-Agent read as ifconfig.co reads it; absent without one); a field the data lacks is left out, as Go's `omitempty` leaves it. Indented by two spaces, without a trailing newline, `Content-Type: application/json`.";

const EchoipObject = Type.Object(
  {
    ip: Type.String(),
    ip_decimal: Type.Integer({ description: 'The address as one unsigned integer (IPv6: up to 39 digits).' }),
    country: Type.Optional(Type.String()),
    country_iso: Type.Optional(Type.String()),
    country_eu: Type.Boolean(),
    region_name: Type.Optional(Type.String()),
    region_code: Type.Optional(Type.String()),
    metro_code: Type.Optional(Type.Integer()),
    zip_code: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    latitude: Type.Optional(Type.Number()),
    longitude: Type.Optional(Type.Number()),
    time_zone: Type.Optional(Type.String()),
    asn: Type.Optional(Type.String()),
    asn_org: Type.Optional(Type.String()),
    hostname: Type.Optional(Type.String()),
    user_agent: Type.Optional(
      Type.Object({
        product: Type.Optional(Type.String()),
        version: Type.Optional(Type.String()),
        comment: Type.Optional(Type.String()),
        raw_value: Type.Optional(Type.String()),
      }),
    ),
  },
  { description: `ifconfig.co's object: ${ECHOIP_JSON_FIELDS}` },
);

const echoipResponses = {
  ...jsonResponses,
  200: {
    description: "ifconfig.co's JSON object about the address.",
    headers: attributionResponseHeader,
    content: { 'application/json': { schema: EchoipObject } },
  },
};

export const callerAddressRouteSchema = {
  summary: "The caller's IP address and a newline, for clients that do not ask for HTML",
  description: `What \`curl host\` shows, as on ifconfig.co: the caller's address as one line of text, to the command-line clients ifconfig.co knows by their User-Agent (curl, Wget, HTTPie, xh, Go's client, fetch, ddclient, MikroTik) whatever their Accept, to \`Accept: text/plain\`, and (where ifconfig.co would send its HTML page) to any client whose Accept lists neither text/html nor application/json, a script without a User-Agent included. Accept listing application/json (and not text/html) gets ifconfig.co's JSON (as /json, and counted like it); a browser (Accept listing text/html) gets the HTML home page, which also always shows the address (with the limit's message in place of the facts when the window is spent). The text answer: ${FREE_ADDRESS_RULE} ${TEXT_RULES}`,
  operationId: 'getTextCallerIp',
  tags: ['text'],
  querystring: IpQuery,
  response: {
    200: {
      description:
        "The caller's address (or `?ip=`, as ifconfig.co echoes it) and a newline; ifconfig.co's JSON object (as /json) to a client whose Accept asks for JSON.",
      content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: EchoipObject } },
    },
    400: textResponse(
      '`ip` is not an address, or the query has an unknown parameter: one line saying why (JSON for a JSON client).',
    ),
    429: {
      ...textResponse('The JSON answer only (it is counted like an /api/v1 request): a limit is spent.'),
      headers: commonErrorResponses[429].headers,
    },
  },
};

export const textJsonRouteSchema = {
  summary: "ifconfig.co's JSON about the caller (or about ?ip=)",
  description: `A drop-in for ifconfig.co's \`/json\`: its object, byte for byte for the same databases (test/fixtures/echoip), not netinfo's: the spec's answer stays at /api/v1/json. ${ECHOIP_JSON_FIELDS} \`?ip=\` asks about another address, as on ifconfig.co. Counted against the limits like an /api/v1 request; errors are the JSON API's.`,
  operationId: 'getTextJson',
  tags: ['text'],
  querystring: IpQuery,
  response: echoipResponses,
};

/** Documented as the other face of GET / (callerAddressRouteSchema): OpenAPI has one operation per method and path. */
export const callerJsonRouteSchema = {
  ...textJsonRouteSchema,
  hide: true,
  summary: "ifconfig.co's JSON about the caller, for `GET /` with `Accept: application/json`",
  description: `What \`curl -H 'Accept: application/json' host\` gets, as on ifconfig.co: the same object as /json. A client is answered this when its Accept lists application/json and not text/html. ${ECHOIP_JSON_FIELDS}`,
  operationId: 'getTextCallerJson',
};

export const headRouteSchema = {
  summary: 'A liveness answer: 204, no body',
  description:
    '`HEAD /` answers 204 No Content, as ifconfig.co does: a cheap check that the service is up. Not counted against the limits. (/healthz and /readyz say more.)',
  operationId: 'checkRoot',
  tags: ['text'],
  response: { 204: { description: 'The service is up.', type: 'null' } },
};
