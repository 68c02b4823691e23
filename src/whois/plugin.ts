import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { parseWhoisTarget } from './parse/target.ts';
import { whoisRouteSchema } from './schema.ts';
import { WhoisLookupError, type WhoisService } from './service.ts';

export interface WhoisPluginOptions {
  whois: WhoisService;
  cap: InFlightCap;
}

export const whoisPlugin: FastifyPluginAsyncTypebox<WhoisPluginOptions> = async (app, { whois, cap }) => {
  app.get('/api/v1/whois', { schema: whoisRouteSchema }, async (request) => {
    const parsed = parseWhoisTarget(request.query.target);
    if (!parsed.ok) throw apiErrors.invalidParameter('target', parsed.reason);
    try {
      return await withinInFlightCap(cap, request, () => whois.lookup(parsed.target));
    } catch (error) {
      if (error instanceof WhoisLookupError) {
        throw error.kind === 'forbidden' ? apiErrors.badRequest(error.message) : apiErrors.upstream(error.message);
      }
      throw error;
    }
  });
};
