import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { RATE_LIMITED } from '../http/route-config.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { snapshotOf } from '../ipinfo/answers/ip-answers.ts';
import { creditData } from '../ipinfo/attribution.ts';
import { parseIpParameter } from '../ipinfo/ip-param.ts';
import type { IpInfoServices } from '../ipinfo/services.ts';
import { echoipFacts, echoipJson } from './echoip-answer.ts';
import {
  callerAddressRouteSchema,
  callerJsonRouteSchema,
  headRouteSchema,
  textJsonRouteSchema,
  textValueRouteSchema,
} from './schema.ts';
import { TEXT_VALUES, type TextPath } from './text-answers.ts';

const TEXT_TYPE = 'text/plain; charset=utf-8';
/** ifconfig.co's exactly: sent as a Buffer, to which Fastify adds no `; charset=utf-8`. */
const JSON_TYPE = 'application/json';

/** The text face's errors are lines of text, not the JSON body (http/error-handler.ts). */
const TEXT_CONFIG: FastifyContextConfig = { ...RATE_LIMITED, plainTextErrors: true };
const FREE_CONFIG: FastifyContextConfig = { plainTextErrors: true };

export interface TextPluginOptions {
  ip: IpInfoServices;
}

/** A drop-in for ifconfig.co (mpolden/echoip) for terminals and scripts, outside /api/v1 but limited like it. */
export const textPlugin: FastifyPluginAsyncTypebox<TextPluginOptions> = async (app, { ip }) => {
  // A browser (Accept with text/html) gets the home page of src/web/site/ instead.
  app.get(
    '/',
    {
      schema: callerAddressRouteSchema,
      constraints: { answers: 'text' },
      config: FREE_CONFIG,
      exposeHeadRoute: false,
    },
    (request, reply) => {
      const asked = askedAddress(request.query.ip, request.clientIp, reply);
      return asked === undefined ? reply : reply.send(`${asked}\n`);
    },
  );
  // OpenAPI leaves HEAD routes out unless told (it names this one `checkRoot-head`).
  app.head(
    '/',
    { schema: headRouteSchema, config: { ...FREE_CONFIG, swagger: { exposeHeadRoute: true } } },
    (_request, reply) => reply.code(204).send(),
  );

  const sendEchoipJson = async (request: FastifyRequest, reply: FastifyReply, text: string | undefined) => {
    let asked = request.clientIp;
    if (text !== undefined) {
      const parsed = parseIpParameter(text);
      if (!parsed.ok) throw apiErrors.invalidParameter('ip', parsed.reason);
      asked = parsed.ip;
    }
    const data = await snapshotOf(ip.store);
    creditData(reply, data);
    // The reverse name is /api/v1/json's (one cache), as ifconfig.co looks it up too.
    const { hostname } = (await ip.answers.complete(asked, data)).answer;
    const agent = request.headers['user-agent'];
    // Node reads header bytes as Latin-1; echoip reads them as UTF-8.
    const userAgent = agent === undefined ? undefined : Buffer.from(agent, 'latin1').toString('utf8');
    return reply
      .header('content-type', JSON_TYPE)
      .header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL)
      .send(Buffer.from(echoipJson(echoipFacts(asked, data), userAgent, hostname)));
  };
  app.get(
    '/',
    { schema: callerJsonRouteSchema, constraints: { answers: 'json' }, config: RATE_LIMITED, exposeHeadRoute: false },
    (request, reply) => sendEchoipJson(request, reply, request.query.ip),
  );
  app.get('/json', { schema: textJsonRouteSchema, config: RATE_LIMITED }, (request, reply) =>
    sendEchoipJson(request, reply, request.query.ip),
  );

  for (const path of Object.keys(TEXT_VALUES) as TextPath[]) {
    const free = path === 'ip';
    const { value } = TEXT_VALUES[path];
    app.get(
      `/${path}`,
      { schema: textValueRouteSchema(path), config: free ? FREE_CONFIG : TEXT_CONFIG },
      async (request, reply) => {
        const asked = askedAddress(request.query.ip, request.clientIp, reply);
        if (asked === undefined) return reply;
        // The address itself needs no data: nothing is looked up for it.
        if (free) return reply.send(`${asked}\n`);
        const data = await snapshotOf(ip.store);
        creditData(reply, data);
        // Only /hostname waits for the reverse name (and shares /api/v1/json's cache for it).
        const line =
          value === undefined
            ? ((await ip.answers.complete(asked, data)).answer.hostname ?? '')
            : value(echoipFacts(asked, data));
        return reply.send(`${line}\n`);
      },
    );
  }
};

/** The caller's address, or `?ip=`; undefined after answering a bad `?ip=` with a 400 line. */
function askedAddress(text: string | undefined, clientIp: string, reply: FastifyReply): string | undefined {
  reply.type(TEXT_TYPE).header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
  if (text === undefined) return clientIp;
  const asked = parseIpParameter(text);
  if (asked.ok) return asked.ip;
  reply.code(400).send(`Invalid query parameter 'ip': ${asked.reason}.\n`);
  return undefined;
}
