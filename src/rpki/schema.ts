import { Type } from 'typebox';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';

const AsnText = (description: string) => Type.String({ pattern: '^AS[0-9]+$', description, examples: ['AS13335'] });

const VrpBody = Type.Object(
  {
    prefix: Type.String({ description: 'The prefix the ROA authorises.', examples: ['1.1.1.0/24'] }),
    maxLength: Type.Integer({ description: 'The longest announcement of the prefix it allows (RFC 6482).' }),
    asn: AsnText('The AS it authorises to originate the prefix; AS0 authorises none (RFC 7607).'),
  },
  { additionalProperties: false },
);

const STATES = ['valid', 'invalid', 'not-found'] as const;
const REASONS = ['asn', 'length'] as const;

const RpkiStatus = Type.Union(
  STATES.map((state) => Type.Literal(state)),
  {
    description:
      'RFC 6811 origin validation: `valid` when a covering VRP names the origin AS and allows the length, `invalid` when VRPs cover the route but none matches, `not-found` when no VRP covers it.',
  },
);

/** `network.rpki` of /api/v1/json: the route and origin of the ASN data, validated against the loaded VRP set. */
export const NetworkRpkiBody = Type.Object(
  {
    status: RpkiStatus,
    reason: Type.Optional(
      Type.Union(
        REASONS.map((reason) => Type.Literal(reason)),
        {
          description:
            'Why an invalid route is invalid: `asn` when no covering VRP names its origin, `length` when those that do allow only shorter announcements. Only with `invalid`.',
        },
      ),
    ),
    vrps: Type.Array(VrpBody, { description: 'Every VRP that covers the route, the most specific prefix first.' }),
  },
  {
    additionalProperties: false,
    description:
      "RPKI origin validation of `route` as announced by `asn`, against the validated ROA payloads (VRPs) the service loaded (FEED_RPKI_URL or RPKI_VRP_FILE, refreshed every RPKI_REFRESH_MINUTES; /readyz gives the set's age). The route is the ASN data's: where that data merged neighbouring announcements of one AS into a larger block, VRPs that cover only the smaller announcements do not cover the block, so it shows `not-found`; GET /api/v1/rpki validates any announcement. Omitted without a VRP set, or without a route and an origin.",
  },
);

/** What /api/v1/asn/{asn} adds: each prefix's status as originated by the AS, and their counts. */
export const AsnRpkiBody = Type.Object(
  {
    summary: Type.Object(
      { valid: Type.Integer(), invalid: Type.Integer(), notFound: Type.Integer() },
      { additionalProperties: false, description: 'How many of the prefixes have each status.' },
    ),
    prefixes: Type.Array(
      Type.Object(
        {
          prefix: Type.String(),
          status: RpkiStatus,
          reason: Type.Optional(Type.Union(REASONS.map((reason) => Type.Literal(reason)))),
        },
        { additionalProperties: false },
      ),
      { description: 'Every prefix of `prefixes` (IPv4 first), validated as originated by this AS.' },
    ),
  },
  {
    additionalProperties: false,
    description:
      "RPKI origin validation of the AS's prefixes against the loaded VRP set (see /api/v1/json's `network.rpki` for what merged prefixes mean). Omitted without a VRP set.",
  },
);

const RoutinatorVrp = Type.Object(
  {
    asn: AsnText('The AS the VRP authorises.'),
    prefix: Type.String(),
    max_length: Type.String({ description: 'The maxLength, as a string: Routinator writes it so.', examples: ['24'] }),
  },
  { additionalProperties: false },
);

const RpkiAnswer = Type.Object(
  {
    validated_route: Type.Object(
      {
        route: Type.Object(
          {
            origin_asn: AsnText('The origin asked about.'),
            prefix: Type.String({ description: 'The prefix asked about.' }),
          },
          { additionalProperties: false },
        ),
        validity: Type.Object(
          {
            state: RpkiStatus,
            reason: Type.Optional(
              Type.Union([Type.Literal('as'), Type.Literal('length')], {
                description: "Routinator's reason for `invalid`: `as` (no covering VRP names the origin) or `length`.",
              }),
            ),
            description: Type.String({
              description: "The RIPE NCC validator's sentence for the state, as Routinator gives it.",
            }),
            VRPs: Type.Object(
              {
                matched: Type.Array(RoutinatorVrp, {
                  description: 'Covering VRPs of the origin that allow the length.',
                }),
                unmatched_as: Type.Array(RoutinatorVrp, { description: 'Covering VRPs of other ASes (AS0 included).' }),
                unmatched_length: Type.Array(RoutinatorVrp, {
                  description: 'Covering VRPs of the origin whose maxLength is shorter than the prefix.',
                }),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    generatedTime: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "When the validator generated the VRP set (its export's metadata); omitted when the export does not say.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RPKI_PREFIX_HINT = 'a prefix in CIDR form, `1.1.1.0/24` or `2606:4700::/32`, without host bits';
export const RPKI_ASN_HINT = 'the origin AS, `AS13335` or `13335`';

export const rpkiRouteSchema = {
  summary: 'RPKI origin validation (RFC 6811) of any prefix and origin AS, answered like Routinator',
  description: `Whether an announcement of \`prefix\` originated by \`asn\` is RPKI \`valid\`, \`invalid\` or \`not-found\`
against the validated ROA payloads the service loaded, with every covering VRP sorted into matched, unmatched by AS and
unmatched by length. The body is Routinator's validity API's (\`/api/v1/validity/{asn}/{prefix}\`), so tools written for
Routinator read it as is. The set comes from FEED_RPKI_URL (rpki-client's export by default) or the operator's
RPKI_VRP_FILE and is swapped in without a restart every RPKI_REFRESH_MINUTES; \`generatedTime\` says how old it is.
Answered from memory: no request leaves the service. 400 for a prefix that is not a CIDR or has host bits set, or an
AS number over 2^32 - 1; 503 while no VRP set is loaded.`,
  operationId: 'getRpkiValidity',
  tags: ['ip'],
  querystring: Type.Object(
    {
      prefix: Type.String({ maxLength: 64, description: `The announced prefix: ${RPKI_PREFIX_HINT}.` }),
      asn: Type.String({ maxLength: 16, description: `The origin AS: ${RPKI_ASN_HINT}.` }),
    },
    { additionalProperties: false },
  ),
  response: {
    200: okResponse(RpkiAnswer, 'The validity of the announcement and the VRPs behind it.'),
    ...commonErrorResponses,
    503: {
      ...commonErrorResponses[400],
      description: 'No VRP set is loaded (FEED_RPKI_URL is off, or nothing is installed yet).',
    },
  },
};
