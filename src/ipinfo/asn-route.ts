import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { ASN_PARAMETER_HINT, AsnBody, describeAsn, parseAsn } from './answers/asn-answer.ts';
import { snapshotOf } from './answers/ip-answers.ts';
import { creditData, withAttribution } from './attribution.ts';
import type { IpData } from './data/ip-data.ts';
import type { IpDataStore } from './data/ip-data-store.ts';

const DESCRIPTION = `An autonomous system as the loaded ASN data knows it: its organisation and every range the data
attributes to it, as sorted CIDRs (touching ranges merged; a range that is no single CIDR becomes the fewest
CIDRs that cover it), with their counts and the number of IPv4 addresses. \`type\` and \`security\` come from the
ASN-level rules and lists (X4BNet's VPN and datacenter ASN lists, once the refresh or \`npm run data:update\` installed them). \`country\` is
omitted: the ASN data has no country of registration, and one derived from where the prefixes are
geolocated would be a guess.

The prefixes come from the same ASN data as /api/v1/json's \`network\` (the embedded ip-location-db compilation,
the DB-IP or GeoLite2 ASN database \`npm run data:update\` installs, or GEOIP_ASN_DB), indexed by AS once per
data load. 503 while no ASN data is loaded.`;

/** The answer about one AS, or the catalogue's error: 400 not an ASN, 404 unknown, 503 no ASN data. */
export function asnAnswerOrError(text: string, data: IpData | undefined) {
  const asn = parseAsn(text);
  if (asn === null) return apiErrors.invalidPathParameter('asn', ASN_PARAMETER_HINT);
  if (data?.asnIndex === undefined) return apiErrors.asnDataUnavailable();
  return describeAsn(asn, data) ?? apiErrors.unknownAsn(`AS${asn}`);
}

export function registerAsnRoute(app: FastifyInstance, store: IpDataStore): void {
  app.get(
    '/api/v1/asn/:asn',
    {
      schema: {
        summary: 'An autonomous system: organisation, prefixes (IPv4 and IPv6 CIDRs), type, ASN lists',
        description: DESCRIPTION,
        tags: ['ip'],
        params: Type.Object({ asn: Type.String({ description: `The AS: ${ASN_PARAMETER_HINT}.` }) }),
        response: {
          200: withAttribution(okResponse(AsnBody, 'The AS and its prefixes.')),
          ...commonErrorResponses,
          404: { ...commonErrorResponses[400], description: 'The loaded ASN data has no range of this AS.' },
          503: {
            ...commonErrorResponses[400],
            description: 'No ASN data is loaded (it failed to load).',
          },
        },
      },
      config: { parameterHints: { asn: ASN_PARAMETER_HINT } },
    },
    async (request, reply) => {
      const data = await snapshotOf(store);
      const answer = asnAnswerOrError((request.params as { asn: string }).asn, data);
      if (answer instanceof Error) throw answer;
      creditData(reply, data);
      return answer;
    },
  );
}
