import { type EchoipFacts, formatCoordinate } from './echoip-answer.ts';

/**
 * The one-line paths: ifconfig.co's (their values as ifconfig.co prints them, from echoip-answer.ts)
 * and netinfo's extras (`/region`, `/timezone` from the same facts, `/hostname` from /api/v1/json's
 * answer). An unknown value is an empty line, as on ifconfig.co, so a script's variable is empty.
 */
export const TEXT_VALUES = {
  ip: { what: 'address', value: (facts: EchoipFacts) => facts.ip },
  country: { what: 'country', value: (facts: EchoipFacts) => facts.country },
  'country-iso': { what: 'country code', value: (facts: EchoipFacts) => facts.countryIso },
  city: { what: 'city', value: (facts: EchoipFacts) => facts.city },
  region: { what: 'region', value: (facts: EchoipFacts) => facts.regionName },
  asn: { what: 'AS number', value: (facts: EchoipFacts) => facts.asn },
  'asn-org': { what: 'AS organisation', value: (facts: EchoipFacts) => facts.asnOrg },
  hostname: { what: 'reverse DNS name', value: undefined },
  timezone: { what: 'time zone', value: (facts: EchoipFacts) => facts.timeZone },
  coordinates: {
    what: 'coordinates',
    value: (facts: EchoipFacts) => `${formatCoordinate(facts.latitude)},${formatCoordinate(facts.longitude)}`,
  },
} as const satisfies Record<string, { what: string; value: ((facts: EchoipFacts) => string) | undefined }>;

export type TextPath = keyof typeof TEXT_VALUES;
