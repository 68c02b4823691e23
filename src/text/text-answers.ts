import type { IpInfo } from '../ipinfo/answers/ip-answers.ts';

/**
 * The one-line values of the plain-text paths (ifconfig.co's), each read from the /json answer:
 * the same pure answer, never a second implementation. Undefined when the answer lacks it.
 */
export const TEXT_VALUES = {
  ip: { what: 'address', value: (a: IpInfo) => a.ip },
  country: { what: 'country', value: (a: IpInfo) => a.location?.country },
  'country-iso': { what: 'country code', value: (a: IpInfo) => a.location?.countryCode },
  city: { what: 'city', value: (a: IpInfo) => a.location?.city },
  region: { what: 'region', value: (a: IpInfo) => a.location?.region },
  asn: { what: 'AS number', value: (a: IpInfo) => a.network?.asn },
  'asn-org': { what: 'AS organisation', value: (a: IpInfo) => a.network?.provider },
  hostname: { what: 'reverse DNS name', value: (a: IpInfo) => a.hostname },
  timezone: { what: 'time zone', value: (a: IpInfo) => a.location?.timezone },
  coordinates: {
    what: 'coordinates',
    value: (a: IpInfo) => {
      const { latitude, longitude } = a.location ?? {};
      return latitude === undefined || longitude === undefined ? undefined : `${latitude},${longitude}`;
    },
  },
} as const satisfies Record<string, { what: string; value: (answer: IpInfo) => string | undefined }>;

export type TextPath = keyof typeof TEXT_VALUES;

/** The one line a text path answers: the value, or (for a 404) why there is none. */
export function textLine(path: TextPath, answer: IpInfo): { found: boolean; line: string } {
  const { what, value } = TEXT_VALUES[path];
  const found = value(answer);
  if (found !== undefined) return { found: true, line: `${found}\n` };
  const why = answer.special !== undefined && answer.security.bogon ? ` (a ${answer.special.kind} address)` : '';
  return { found: false, line: `No ${what} is known for ${answer.ip}${why}.\n` };
}
