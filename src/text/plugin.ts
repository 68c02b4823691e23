import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyReply } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { RATE_LIMITED } from '../http/route-config.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { describeIp } from '../ipinfo/answers/describe-ip.ts';
import { snapshotOf } from '../ipinfo/answers/ip-answers.ts';
import { creditData } from '../ipinfo/attribution.ts';
import { parseIpParameter } from '../ipinfo/ip-param.ts';
import { selectedFields } from '../ipinfo/json-answer.ts';
import type { IpInfoServices } from '../ipinfo/services.ts';
import { callerAddressRouteSchema, textJsonRouteSchema, textValueRouteSchema } from './schema.ts';
import { TEXT_VALUES, type TextPath, textLine } from './text-answers.ts';

const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The text face's errors are lines of text, not the JSON body (http/error-handler.ts). */
const TEXT_CONFIG: FastifyContextConfig = { ...RATE_LIMITED, plainTextErrors: true };
const FREE_CONFIG: FastifyContextConfig = { plainTextErrors: true };

export interface TextPluginOptions {
  ip: IpInfoServices;
}

/** ifconfig.co-compatible paths for terminals (`curl host/city`), outside /api/v1 but limited like it. */
export const textPlugin: FastifyPluginAsyncTypebox<TextPluginOptions> = async (app, { ip }) => {
  // A browser (Accept with text/html) gets the home page of src/web/site/ instead.
  app.get(
    '/',
    { schema: callerAddressRouteSchema, constraints: { answers: 'text' }, config: FREE_CONFIG },
    (request, reply) =>
      reply.type(TEXT_TYPE).header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL).send(`${request.clientIp}\n`),
  );
  for (const path of Object.keys(TEXT_VALUES) as TextPath[]) {
    const free = path === 'ip';
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
        const answer = path === 'hostname' ? (await ip.answers.complete(asked, data)).answer : describeIp(asked, data);
        const { found, line } = textLine(path, answer);
        return reply.code(found ? 200 : 404).send(line);
      },
    );
  }

  app.get('/json', { schema: textJsonRouteSchema, config: RATE_LIMITED }, (request, reply) => {
    const { ip: text, fields } = request.query;
    if (text === undefined) return ip.sendJson(request.clientIp, undefined, selectedFields(fields), reply);
    const asked = parseIpParameter(text);
    if (!asked.ok) throw apiErrors.invalidParameter('ip', asked.reason);
    return ip.sendJson(asked.ip, asked.mappedFrom, selectedFields(fields), reply);
  });
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
