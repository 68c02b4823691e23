import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { bodyCheckedByHandlerCompiler } from '../http/validators.ts';
import { asnSummary, batchSummary, ipSummary } from './agent-summaries.ts';
import { ASN_PARAMETER_HINT } from './answers/asn-answer.ts';
import { snapshotOf } from './answers/ip-answers.ts';
import { asnAnswerOrError } from './asn-lookup.ts';
import { creditData } from './attribution.ts';
import { answerBatch, BATCH_FIELDS, distinctBodyItems, parsedBody, refuseFieldsThatEmptyAKind } from './batch.ts';
import { describeIpFamily } from './ip-family.ts';
import { IP_PARAMETER_HINT, parseIpParameter } from './ip-param.ts';
import { selectedFields } from './json-answer.ts';
import {
  asnRouteSchema,
  BATCH_BODY_LIMIT_BYTES,
  batchRouteSchema,
  ipFamilyRouteSchema,
  jsonIpRouteSchema,
  jsonRouteSchema,
} from './schema.ts';
import type { IpInfoServices } from './services.ts';

export const BATCH_PATH = '/api/v1/batch';

const IPV6_NOT_A_TOOL = {
  agentTool: { none: "my_ip answers the caller's address, whose family is plain from it" },
};

export interface IpInfoPluginOptions {
  services: IpInfoServices;
  now: () => number;
}

/** /api/v1/ipv6, /json, /json/{ip}, /asn/{asn} and /batch. */
export const ipInfoPlugin: FastifyPluginAsyncTypebox<IpInfoPluginOptions> = async (app, { services, now }) => {
  const { store, sendJson } = services;

  // Sent at once rather than returned from an async function: no promise on the hottest route.
  app.get('/api/v1/ipv6', { schema: ipFamilyRouteSchema, config: IPV6_NOT_A_TOOL }, (request, reply) => {
    reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL).send(describeIpFamily(request.clientIp, now()));
  });

  app.get(
    '/api/v1/json',
    { schema: jsonRouteSchema, config: { agentTool: agentTool('my_ip', ipSummary) } },
    (request, reply) => sendJson(request.clientIp, undefined, selectedFields(request.query.fields), reply),
  );

  app.get(
    '/api/v1/json/:ip',
    {
      schema: jsonIpRouteSchema,
      config: { parameterHints: { ip: IP_PARAMETER_HINT }, agentTool: agentTool('ip_info', ipSummary) },
    },
    (request, reply) => {
      const asked = parseIpParameter(request.params.ip);
      if (!asked.ok) throw apiErrors.invalidPathParameter('ip', asked.reason);
      return sendJson(asked.ip, asked.mappedFrom, selectedFields(request.query.fields), reply);
    },
  );

  app.get(
    '/api/v1/asn/:asn',
    {
      schema: asnRouteSchema,
      config: { parameterHints: { asn: ASN_PARAMETER_HINT }, agentTool: agentTool('asn_info', asnSummary) },
    },
    async (request, reply) => {
      const data = await snapshotOf(store);
      const answer = asnAnswerOrError(request.params.asn, data);
      if (answer instanceof Error) throw answer;
      creditData(reply, data);
      return answer;
    },
  );

  // Its own scope: the body is read as text here, and only this route refuses other types.
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: BATCH_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      BATCH_PATH,
      {
        schema: batchRouteSchema,
        // parseBatchBody checks the body; its schema is for the document.
        validatorCompiler: bodyCheckedByHandlerCompiler(),
        // Counted as its distinct items, all or nothing, once the body is read (limits/rate-limit-hook.ts).
        config: {
          agentTool: agentTool('ip_batch', batchSummary),
          rateLimitCost: (request) => distinctBodyItems(request).length,
          rateLimitCostText: (request, cost) => {
            const sent = parsedBody(request).length;
            return sent === cost
              ? `this batch has ${cost} items`
              : `this batch has ${cost} distinct items (of ${sent} sent)`;
          },
        },
        onRequest: (request, _reply, done) => {
          const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
          done(type === 'application/json' ? undefined : apiErrors.unsupportedMediaType());
        },
      },
      async (request, reply) => {
        const fields = selectedFields(request.query.fields, BATCH_FIELDS);
        const items = distinctBodyItems(request);
        if (fields !== undefined) refuseFieldsThatEmptyAKind(fields, items);
        const data = await snapshotOf(store);
        const wantsHostname = fields?.some((path) => path[0] === 'hostname') === true;
        const lookup = wantsHostname ? services.batchHostnameLookup : undefined;
        const body = await answerBatch(items, data, fields, lookup);
        creditData(reply, data);
        return reply.type('application/json; charset=utf-8').send(body);
      },
    );
    // GET on the path is a 405 naming POST, not a 404.
    scope.get(
      BATCH_PATH,
      { schema: { hide: true }, config: { agentTool: { none: 'a 405 naming POST, which is the tool ip_batch' } } },
      async (request) => {
        throw apiErrors.methodNotAllowed(request.method, BATCH_PATH, ['POST', 'OPTIONS']);
      },
    );
  });
};
