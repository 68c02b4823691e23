import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import type { QuestionTally, UpstreamCharges } from '../limits/upstream-cost.ts';
import type { BlacklistChecker } from './checker.ts';
import { blacklistRouteSchema } from './schema.ts';

export interface BlacklistPluginOptions {
  checker: BlacklistChecker;
  charges: UpstreamCharges;
}

export const blacklistPlugin: FastifyPluginAsyncTypebox<BlacklistPluginOptions> = async (app, { checker, charges }) => {
  app.get('/api/v1/blacklist', { schema: blacklistRouteSchema }, async (request, reply) => {
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
  });
};
