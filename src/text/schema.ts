import { Type } from 'typebox';
import { commonErrorResponses } from '../http/schemas.ts';
import { attributionResponseHeader } from '../ipinfo/attribution.ts';
import { IP_PARAMETER_HINT } from '../ipinfo/ip-param.ts';
import { FieldsParameter, jsonResponses } from '../ipinfo/schema.ts';
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
  200: { ...textResponse('The value and a newline.'), headers: attributionResponseHeader },
  400: textResponse('`ip` is not an address, or the query has an unknown parameter: one line saying why.'),
  401: {
    ...textResponse('The API key is malformed, unknown or revoked: one line saying which.'),
    headers: { 'WWW-Authenticate': commonErrorResponses[401].headers['WWW-Authenticate'] },
  },
  404: textResponse(
    'The data has no such value for the address: one line saying so (`No city is known for 8.8.8.8.`).',
  ),
  429: {
    ...textResponse(
      'A limit is spent: one line saying which and when it resets, with the X-RateLimit-* and Retry-After headers of the JSON API.',
    ),
    headers: commonErrorResponses[429].headers,
  },
};

const TEXT_EXAMPLES: Partial<Record<TextPath, string>> = { asn: ': `AS15169`', coordinates: ': `latitude,longitude`' };

const operationName = (path: TextPath) =>
  path
    .split('-')
    .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
    .join('');

export const callerAddressRouteSchema = {
  summary: "The caller's IP address and a newline, for clients that do not ask for HTML",
  description: `What \`curl host\` shows: the caller's address as one line of text, to a client whose Accept header does not list text/html (curl, wget, HTTPie, no Accept at all). A client whose Accept lists text/html (a browser) gets an HTML page instead, which also always shows the address (with the limit's message in place of the facts when the window is spent). ${FREE_ADDRESS_RULE} ${TEXT_RULES}`,
  operationId: 'getTextCallerIp',
  tags: ['text'],
  response: {
    200: textResponse("The caller's address and a newline."),
    400: textResponse('The query has a parameter: one line saying so.'),
  },
};

/** `/ip` is neither looked up nor counted: no 401, 404 or 429. */
export function textValueRouteSchema(path: TextPath) {
  const free = path === 'ip';
  return {
    summary: `The ${TEXT_VALUES[path].what} of the caller (or of ?ip=), as one line of text`,
    description: `Plain text for terminals (\`curl host/${path}\`${TEXT_EXAMPLES[path] ?? ''}), from the same answer as /api/v1/json; \`?ip=\` parses the address as /api/v1/json/{ip} does.${path === 'hostname' ? ' Only this path waits for the reverse lookup.' : ''} ${
      free ? FREE_ADDRESS_RULE : 'Counted against the limits like an /api/v1 request.'
    } ${TEXT_RULES}`,
    operationId: `getText${operationName(path)}`,
    tags: ['text'],
    querystring: IpQuery,
    response: (free ? { 200: TEXT_RESPONSES[200], 400: TEXT_RESPONSES[400] } : TEXT_RESPONSES) as typeof TEXT_RESPONSES,
  };
}

export const textJsonRouteSchema = {
  summary: 'What /api/v1/json answers (about the caller, or about ?ip=)',
  description:
    "The /api/v1/json answer at an ifconfig.co-compatible path; `?ip=` asks about another address, as /api/v1/json/{ip} does. Counted against the limits like an /api/v1 request; errors are the JSON API's.",
  operationId: 'getTextJson',
  tags: ['text'],
  querystring: Type.Object({ ip: IpParameter, fields: FieldsParameter }, { additionalProperties: false }),
  response: jsonResponses,
};
