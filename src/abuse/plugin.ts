import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { parseAbuseAddress } from './abuse-contact.ts';
import { abuseRouteSchema } from './schema.ts';
import { AbuseLookupError, type AbuseService, describeNoContact } from './service.ts';

export interface AbusePluginOptions {
  abuse: AbuseService;
}

export const abusePlugin: FastifyPluginAsyncTypebox<AbusePluginOptions> = async (app, { abuse }) => {
  app.get('/api/v1/abuse', { schema: abuseRouteSchema }, async (request) => {
    const parsed = parseAbuseAddress(request.query.ip);
    if (!parsed.ok) throw apiErrors.invalidParameter('ip', parsed.reason);
    try {
      const finding = await abuse.lookup(parsed.ip, request);
      if (!finding.found) throw apiErrors.abuseContactNotFound(describeNoContact(parsed.ip, finding));
      return { ip: parsed.ip, ...finding.contact, queried_at: finding.queried_at, cached: finding.cached };
    } catch (error) {
      throw error instanceof AbuseLookupError ? apiErrors.upstream(error.message) : error;
    }
  });
};
