import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { parseAbuseAddress } from './abuse-contact.ts';
import { abuseRouteSchema } from './schema.ts';
import { AbuseLookupError, type AbuseService, describeNoContact } from './service.ts';

/** `192.0.2.1: report abuse to abuse@example.net (Example NOC, RIPE NCC)` */
const ABUSE_TOOL = agentTool<{ ip: string; email: string; name?: string | null; registry: string }>(
  'abuse_contact',
  (answer) =>
    `${answer.ip}: report abuse to ${answer.email} (${answer.name ? `${answer.name}, ` : ''}${answer.registry})`,
);

export interface AbusePluginOptions {
  abuse: AbuseService;
}

export const abusePlugin: FastifyPluginAsyncTypebox<AbusePluginOptions> = async (app, { abuse }) => {
  app.get('/api/v1/abuse', { schema: abuseRouteSchema, config: { agentTool: ABUSE_TOOL } }, async (request) => {
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
