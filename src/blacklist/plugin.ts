import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import type { QuestionTally, UpstreamCharges } from '../limits/upstream-cost.ts';
import type { BlacklistChecker } from './checker.ts';
import { blacklistRouteSchema } from './schema.ts';

/** `192.0.2.1: listed on 1 of 8 lists (Spamhaus ZEN)`; `…, 2 lists did not answer` when incomplete */
const BLACKLIST_TOOL = agentTool<{
  ip: string;
  total: number;
  listed: number;
  errors: number;
  results: { name: string; listed: boolean }[];
}>('blacklist_check', (answer) => {
  const names = answer.results.filter((result) => result.listed).map((result) => result.name);
  const failed = answer.errors > 0 ? `; ${answer.errors} did not answer` : '';
  return `${answer.ip}: listed on ${answer.listed} of ${answer.total} lists${names.length > 0 ? ` (${names.join(', ')})` : ''}${failed}`;
});

export interface BlacklistPluginOptions {
  checker: BlacklistChecker;
  charges: UpstreamCharges;
}

export const blacklistPlugin: FastifyPluginAsyncTypebox<BlacklistPluginOptions> = async (app, { checker, charges }) => {
  app.get(
    '/api/v1/blacklist',
    { schema: blacklistRouteSchema, config: { agentTool: BLACKLIST_TOOL } },
    async (request, reply) => {
      const ip = request.query.ip.trim();
      const family = isIP(ip);
      if (family === 6) {
        throw apiErrors.invalidParameter('ip', 'IPv6 is not supported by these lists; give an IPv4 address');
      }
      if (family !== 4) throw apiErrors.invalidParameter('ip', 'must be an IPv4 address such as 192.0.2.1');
      const tally: QuestionTally = { questions: 0 };
      try {
        return await checker.check(ip, tally);
      } finally {
        await charges.settle(request, reply, tally);
      }
    },
  );
};
