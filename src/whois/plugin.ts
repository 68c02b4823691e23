import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { parseWhoisTarget } from './parse/target.ts';
import { whoisRouteSchema } from './schema.ts';
import { WhoisLookupError, type WhoisService } from './service.ts';

/** `example.com (domain, whois): registrar X, created 1995-08-14, expires 2026-08-13, name servers a, b` */
const WHOIS_AGENT_TOOL = agentTool<{
  target: string;
  target_type: string;
  source: string;
  parsed: {
    registrar: string | null;
    creation_date: string | null;
    expiration_date: string | null;
    name_servers: string[];
    registered: boolean | null;
    network_name?: string | null;
    organisation?: string | null;
    range?: string | null;
    country?: string | null;
  };
}>('whois', ({ target, target_type, source, parsed }) => {
  const facts = [
    parsed.registered === false ? 'not registered' : undefined,
    parsed.registrar ? `registrar ${parsed.registrar}` : undefined,
    parsed.organisation ? `organisation ${parsed.organisation}` : undefined,
    parsed.network_name ? `network ${parsed.network_name}` : undefined,
    parsed.range ? `range ${parsed.range}` : undefined,
    parsed.country ? `country ${parsed.country}` : undefined,
    parsed.creation_date ? `created ${parsed.creation_date}` : undefined,
    parsed.expiration_date ? `expires ${parsed.expiration_date}` : undefined,
    parsed.name_servers.length > 0 ? `name servers ${parsed.name_servers.join(', ')}` : undefined,
  ].filter(Boolean);
  return `${target} (${target_type}, ${source})${facts.length > 0 ? `: ${facts.join(', ')}` : ''}`;
});

export interface WhoisPluginOptions {
  whois: WhoisService;
  cap: InFlightCap;
}

export const whoisPlugin: FastifyPluginAsyncTypebox<WhoisPluginOptions> = async (app, { whois, cap }) => {
  app.get('/api/v1/whois', { schema: whoisRouteSchema, config: { agentTool: WHOIS_AGENT_TOOL } }, async (request) => {
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
