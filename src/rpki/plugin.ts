import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { MAX_ASN, parseAsn } from '../net/asn.ts';
import { parseCidr } from '../net/cidr.ts';
import { validityAnswer } from './answers.ts';
import { RPKI_ASN_HINT, RPKI_PREFIX_HINT, rpkiRouteSchema } from './schema.ts';
import type { VrpSet } from './vrp-set.ts';

/** `1.1.1.0/24 from AS13335: valid (…Routinator's sentence)` */
const RPKI_TOOL = agentTool<{
  validated_route: { route: { origin_asn: string; prefix: string }; validity: { state: string; description: string } };
}>(
  'rpki_validate',
  ({ validated_route: { route, validity } }) =>
    `${route.prefix} from ${route.origin_asn}: ${validity.state} (${validity.description})`,
);

export interface RpkiPluginOptions {
  /** The VRP set of the current IP data snapshot (undefined: none loaded). */
  vrps: () => VrpSet | undefined | Promise<VrpSet | undefined>;
}

/** GET /api/v1/rpki. */
export const rpkiPlugin: FastifyPluginAsyncTypebox<RpkiPluginOptions> = async (app, { vrps }) => {
  app.get('/api/v1/rpki', { schema: rpkiRouteSchema, config: { agentTool: RPKI_TOOL } }, async (request) => {
    const { prefix, asn } = request.query;
    const parsed = prefix.includes('/') ? parseCidr(prefix) : { ok: false as const, reason: 'no prefix length' };
    if (!parsed.ok) throw apiErrors.invalidParameter('prefix', `${RPKI_PREFIX_HINT} (${parsed.reason})`);
    const origin = parseAsn(asn);
    if (origin === null) throw apiErrors.invalidParameter('asn', `${RPKI_ASN_HINT}, from 0 to ${MAX_ASN}`);
    const set = await vrps();
    if (set === undefined) throw apiErrors.rpkiDataUnavailable();
    return validityAnswer(set, parsed.cidr, origin);
  });
};
