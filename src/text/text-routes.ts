import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { RATE_LIMITED } from '../http/route-config.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL, commonErrorResponses } from '../http/schemas.ts';
import { describeIp } from '../ipinfo/answers/describe-ip.ts';
import { type IpInfo, snapshotOf } from '../ipinfo/answers/ip-answers.ts';
import { attributionResponseHeader, creditData } from '../ipinfo/attribution.ts';
import type { IpInfoServices } from '../ipinfo/ip-info.ts';
import { IP_PARAMETER_HINT, parseIpParameter } from '../ipinfo/ip-param.ts';
import { FIELDS_DESCRIPTION, selectedFields } from '../ipinfo/json-route.ts';
import { TEXT_VALUES, type TextPath, textLine } from './text-answers.ts';

const TEXT_TYPE = 'text/plain; charset=utf-8';

const IpQuery = Type.Object(
  {
    ip: Type.Optional(
      Type.String({
        maxLength: 100,
        description: `Ask about this address instead of the caller's: ${IP_PARAMETER_HINT}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

const textResponse = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/**
 * What every text answer shares, said once: terminals read these paths, so errors are text too, and
 * nothing a terminal would obey gets through.
 */
const TEXT_RULES =
  'Every answer is text/plain, errors included (one line saying what happened, with the status and headers of the JSON API). Control characters from any source (a reverse DNS name, WHOIS or TXT text, a header) never reach the terminal: C0 controls other than newline and tab, DEL and the C1 range U+0080-U+009F are written as `\\xNN` (their code point in two hex digits), in every text/plain answer of the service.';

/** The caller's own address costs nothing to tell, so it is always answered (ifconfig.co's `curl host`). */
const FREE_ADDRESS_RULE =
  'Not counted against the limits: repeating an address costs nothing, so the answer comes even when the caller has spent its hourly or daily window (and carries no X-RateLimit-* headers).';

const TEXT_RESPONSES = {
  200: { ...textResponse('The value and a newline.'), headers: attributionResponseHeader },
  400: textResponse('`ip` is not an address, or the query has an unknown parameter: one line saying why.'),
  404: textResponse('The data has no such value for the address: one line saying so.'),
  429: {
    ...textResponse(
      'A limit is spent: one line saying which and when it resets, with the X-RateLimit-* and Retry-After headers of the JSON API.',
    ),
    headers: commonErrorResponses[429].headers,
  },
};

/** The text face's errors are lines of text, not the JSON body (http/error-handler.ts). */
const TEXT_CONFIG: FastifyContextConfig = { ...RATE_LIMITED, plainTextErrors: true };
const FREE_CONFIG: FastifyContextConfig = { plainTextErrors: true };

/**
 * ifconfig.co-compatible paths for terminals (`curl host/city`): one line of text each, about the
 * caller or about `?ip=`. Outside /api/v1 but limited like it (RATE_LIMITED), with the same CORS
 * and request-id headers. `GET /json` answers like /api/v1/json.
 */
export function registerTextRoutes(app: FastifyInstance, ip: IpInfoServices): void {
  // A browser (Accept with text/html) gets the home page of src/web/site/ instead.
  app.get(
    '/',
    {
      schema: {
        summary: "The caller's IP address and a newline, for clients that do not ask for HTML",
        description: `What \`curl host\` shows: the caller's address as one line of text. A client whose Accept header lists text/html (a browser) gets an HTML page instead, which also always shows the address (with the limit's message in place of the facts when the window is spent). ${FREE_ADDRESS_RULE} ${TEXT_RULES}`,
        tags: ['text'],
        response: { 200: textResponse("The caller's address and a newline.") },
      },
      constraints: { answers: 'text' },
      config: FREE_CONFIG,
    },
    (request, reply) =>
      reply.type(TEXT_TYPE).header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL).send(`${request.clientIp}\n`),
  );
  for (const path of Object.keys(TEXT_VALUES) as TextPath[]) {
    const free = path === 'ip';
    app.get(
      `/${path}`,
      {
        schema: {
          summary: `The ${TEXT_VALUES[path].what} of the caller (or of ?ip=), as one line of text`,
          description: `Plain text for terminals (\`curl host/${path}\`), from the same answer as /api/v1/json. ${
            free ? FREE_ADDRESS_RULE : 'Counted against the limits like an /api/v1 request.'
          } ${TEXT_RULES}`,
          tags: ['text'],
          querystring: IpQuery,
          // /ip is neither looked up nor counted: no 404, no 429.
          response: (free
            ? { 200: TEXT_RESPONSES[200], 400: TEXT_RESPONSES[400] }
            : TEXT_RESPONSES) as typeof TEXT_RESPONSES,
        },
        config: free ? FREE_CONFIG : TEXT_CONFIG,
      },
      (request, reply) => {
        const asked = askedAddress(request, reply);
        if (asked === undefined) return reply;
        // The address itself needs no data: nothing is looked up for it.
        if (free) return reply.send(`${asked.ip}\n`);
        const data = snapshotOf(ip.store);
        const answerWith = (loaded: Awaited<typeof data>): IpInfo | Promise<IpInfo> => {
          creditData(reply, loaded);
          // Only /hostname waits for the reverse name (and shares /api/v1/json's cache for it).
          if (path !== 'hostname') return describeIp(asked.ip, loaded);
          const complete = ip.answers.complete(asked.ip, loaded);
          return complete instanceof Promise ? complete.then((made) => made.answer) : complete.answer;
        };
        const send = (answer: IpInfo) => {
          const { found, line } = textLine(path, answer);
          return reply.code(found ? 200 : 404).send(line);
        };
        const answer = data instanceof Promise ? data.then(answerWith) : answerWith(data);
        return answer instanceof Promise ? answer.then(send) : send(answer);
      },
    );
  }

  app.get(
    '/json',
    {
      schema: {
        summary: 'What /api/v1/json answers (about the caller, or about ?ip=)',
        description:
          'The /api/v1/json answer at an ifconfig.co-compatible path; `?ip=` asks about another address, as /api/v1/json/{ip} does. Counted against the limits like an /api/v1 request.',
        tags: ['text'],
        querystring: Type.Object(
          {
            ip: IpQuery.properties.ip,
            fields: Type.Optional(Type.String({ maxLength: 2000, description: FIELDS_DESCRIPTION })),
          },
          { additionalProperties: false },
        ),
      },
      config: RATE_LIMITED,
    },
    (request, reply) => {
      const { ip: text, fields } = request.query as { ip?: string; fields?: string };
      if (text === undefined) return ip.sendJson(request.clientIp, undefined, selectedFields(fields), reply);
      const asked = parseIpParameter(text);
      if (!asked.ok) throw apiErrors.invalidParameter('ip', asked.reason);
      return ip.sendJson(asked.ip, asked.mappedFrom, selectedFields(fields), reply);
    },
  );
}

/** The caller's address, or `?ip=`; undefined after answering a bad `?ip=` with a 400 line. */
function askedAddress(request: FastifyRequest, reply: FastifyReply): { ip: string } | undefined {
  reply.type(TEXT_TYPE).header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
  const text = (request.query as { ip?: string }).ip;
  if (text === undefined) return { ip: request.clientIp };
  const asked = parseIpParameter(text);
  if (asked.ok) return { ip: asked.ip };
  reply.code(400).send(`Invalid query parameter 'ip': ${asked.reason}.\n`);
  return undefined;
}
