import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from 'typebox';
import { parseAsn } from '../../net/asn.ts';
import { asnRpki } from '../../rpki/answers.ts';
import { AsnRpkiBody } from '../../rpki/schema.ts';
import type { IpData } from '../data/ip-data.ts';
import { type ConnectionType, connectionType } from './classify.ts';
import { CONNECTION_TYPES } from './json-schema.ts';

export { parseAsn };

export const ASN_PARAMETER_HINT = 'an AS number, `AS15169` or `15169` (case-insensitive, no leading zeros)';

export const ASN_SOURCES = ['asn-data', 'vpn-asns', 'datacenter-asns', 'rpki'] as const;
type AsnSource = (typeof ASN_SOURCES)[number];

export interface AsnAnswer {
  asn: string;
  name?: string;
  country?: string;
  prefixes: { ipv4: readonly string[]; ipv6: readonly string[] };
  prefixCount: { ipv4: number; ipv6: number };
  ipv4Addresses: number;
  type?: ConnectionType;
  security: { vpn?: boolean; hosting?: boolean };
  rpki?: ReturnType<typeof asnRpki>;
  sources: AsnSource[];
}

/**
 * What the loaded data says about one AS, or undefined when its ASN data holds no range of it.
 * Needs the ASN index of the loaded ASN data (`data.asnIndex`); the caller refuses the request without it.
 * `country` is never set: the ASN data has no country of registration, and the most common
 * country of the AS's prefixes in the City database would be a guess (a global network's prefixes
 * are geolocated all over the world).
 */
export function describeAsn(asn: number, data: IpData): AsnAnswer | undefined {
  const prefixes = data.asnIndex?.prefixesOf(asn);
  if (prefixes === undefined) return undefined;
  const answer: AsnAnswer = {
    asn: `AS${asn}`,
    prefixes: { ipv4: prefixes.ipv4, ipv6: prefixes.ipv6 },
    prefixCount: { ipv4: prefixes.ipv4.length, ipv6: prefixes.ipv6.length },
    ipv4Addresses: prefixes.ipv4Addresses,
    security: {},
    sources: ['asn-data'],
  };
  if (prefixes.name !== '') answer.name = prefixes.name;
  const listed = data.feeds.lookupAsn(asn);
  if (data.feedsLoaded.has('vpn-asn')) {
    answer.security.vpn = listed.vpn;
    answer.sources.push('vpn-asns');
  }
  if (data.feedsLoaded.has('datacenter-asn')) {
    answer.security.hosting = listed.hosting;
    answer.sources.push('datacenter-asns');
  }
  const type = connectionType({
    hostingListed: listed.hosting,
    ...(answer.name ? { asOrganization: answer.name } : {}),
  });
  if (type !== undefined) answer.type = type;
  if (data.rpki !== undefined) {
    answer.rpki = asnRpki(data.rpki, [...prefixes.ipv4, ...prefixes.ipv6], asn);
    answer.sources.push('rpki');
  }
  return answer;
}

const Cidrs = (family: string) =>
  Type.Array(Type.String(), {
    description: `The AS's ${family} address space as CIDRs, sorted by address: ranges that touch are merged, and a merged range that is not one CIDR is the fewest CIDRs that cover exactly it.`,
  });

export const AsnBody = Type.Object(
  {
    asn: Type.String({ pattern: '^AS[0-9]+$', description: 'The AS number.', examples: ['AS15169'] }),
    name: Type.Optional(Type.String({ description: 'The organisation the ASN data names for the AS.' })),
    country: Type.Optional(
      Type.String({
        description:
          "ISO 3166-1 alpha-2 code of the AS's registration, where the loaded data records it. None of the ASN data the service loads (ip-location-db's compilation, DB-IP or GeoLite2 ASN, GeoIP2-ISP) records it, so it is omitted: the most common country of the AS's prefixes would be a guess.",
      }),
    ),
    prefixes: Type.Object(
      { ipv4: Cidrs('IPv4'), ipv6: Cidrs('IPv6') },
      { additionalProperties: false, description: 'The ranges the ASN data attributes to the AS.' },
    ),
    prefixCount: Type.Object(
      { ipv4: Type.Integer(), ipv6: Type.Integer() },
      { additionalProperties: false, description: 'How many CIDRs each list holds.' },
    ),
    ipv4Addresses: Type.Integer({ description: 'How many IPv4 addresses the IPv4 prefixes hold.' }),
    type: Type.Optional(
      Type.Union(
        CONNECTION_TYPES.map((value) => Type.Literal(value)),
        {
          description:
            'The /json `type` rules that can apply to a whole AS: `hosting` when the datacenter ASN list names it, else words in the organisation name (university... education, government... government, mobile... mobile, hosting/cloud/server... hosting). Omitted when none applies.',
        },
      ),
    ),
    security: Type.Object(
      {
        vpn: Type.Optional(
          Type.Boolean({
            description: "Whether X4BNet's VPN-provider ASN list names the AS; omitted until that list is loaded.",
          }),
        ),
        hosting: Type.Optional(
          Type.Boolean({
            description: "Whether X4BNet's datacenter ASN list names the AS; omitted until that list is loaded.",
          }),
        ),
      },
      { additionalProperties: false, description: 'What the loaded ASN lists say about the AS.' },
    ),
    rpki: Type.Optional(AsnRpkiBody),
    sources: Type.Array(Type.Union(ASN_SOURCES.map((value) => Type.Literal(value))), {
      description:
        'The loaded data this answer comes from: `asn-data` (the ASN data, as for /json: names and prefixes), `vpn-asns` and `datacenter-asns` (the lists, once the refresh or `npm run data:update` has installed them), `rpki` (the VRP set behind `rpki`).',
    }),
  },
  { additionalProperties: false },
);

/** Serialised as the /asn route's schema serialises it (batch items use this). */
export const serializeAsnAnswer = SerializerSelector()({}, {})({
  schema: AsnBody,
  method: 'GET',
  url: '/api/v1/asn/:asn',
  httpStatus: '200',
}) as (answer: AsnAnswer) => string;
