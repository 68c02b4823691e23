import { goString } from '../http/go-json.ts';
import { parseUserAgent } from '../http/user-agent.ts';
import type { IpData } from '../ipinfo/data/ip-data.ts';
import { parseIp, unmapIpv4 } from '../net/ip-address.ts';

/**
 * ifconfig.co's answer (mpolden/echoip's `Response`) about one address, read from the same
 * databases netinfo loads, so that a script written for ifconfig.co reads the same bytes here.
 * test/text/echoip-fixtures.test.ts compares every path with answers recorded from echoip itself.
 * Absent values are echoip's zero values: "" (printed as an empty line), 0 (coordinates).
 */
export interface EchoipFacts {
  ip: string;
  ipDecimal: bigint;
  country: string;
  countryIso: string;
  countryEu: boolean;
  regionName: string;
  regionCode: string;
  metroCode: number;
  zipCode: string;
  city: string;
  latitude: number;
  longitude: number;
  timeZone: string;
  asn: string;
  asnOrg: string;
}

/** `ip` is a normalised address (IPv4-mapped IPv6 already unmapped, as Go prints it). */
export function echoipFacts(ip: string, data: IpData | undefined): EchoipFacts {
  const city = data?.location?.lookupCity(ip);
  const location = city?.location;
  const registration = data?.location?.lookupRegistration(ip);
  const parsed = parseIp(ip);
  const network = parsed === null ? undefined : data?.network?.lookupNetwork(ip);
  const countryIso = location?.countryCode ?? registration?.registeredCountryCode ?? '';
  return {
    ip,
    ipDecimal: parsed === null ? 0n : BigInt(unmapIpv4(parsed).value),
    // echoip falls back to the registered country where the record has none (anycast, satellite...).
    country: location?.country ?? registration?.registeredCountry ?? '',
    countryIso,
    countryEu: registration?.inEuropeanUnion ?? false,
    regionName: location?.region ?? '',
    regionCode: location?.regionCode ?? '',
    // MaxMind defines metro codes for the US only; echoip drops any other.
    metroCode: location?.countryCode === 'US' ? (registration?.metroCode ?? 0) : 0,
    zipCode: location?.postalCode ?? '',
    city: location?.city ?? '',
    latitude: location?.latitude ?? 0,
    longitude: location?.longitude ?? 0,
    timeZone: location?.timezone ?? '',
    asn: network?.asnNumber ? `AS${network.asnNumber}` : '',
    asnOrg: network?.provider ?? '',
  };
}

/** Go's strconv.FormatFloat(c, 'f', 6, 64): `/coordinates` prints 0.000000 where the data has none. */
export function formatCoordinate(value: number): string {
  return value.toFixed(6);
}

/**
 * echoip's `/json` body: Go's json.MarshalIndent(response, "", "  "), no trailing newline, its
 * field order and `omitempty` rules (`country_eu` and `ip_decimal` are always there).
 */
export function echoipJson(facts: EchoipFacts, userAgent: string | undefined, hostname: string | undefined): string {
  const lines = [`"ip": ${goString(facts.ip)}`, `"ip_decimal": ${facts.ipDecimal}`];
  const text = (key: string, value: string) => {
    if (value !== '') lines.push(`"${key}": ${goString(value)}`);
  };
  const number = (key: string, value: number) => {
    if (value !== 0) lines.push(`"${key}": ${value}`);
  };
  text('country', facts.country);
  text('country_iso', facts.countryIso);
  lines.push(`"country_eu": ${facts.countryEu}`);
  text('region_name', facts.regionName);
  text('region_code', facts.regionCode);
  number('metro_code', facts.metroCode);
  text('zip_code', facts.zipCode);
  text('city', facts.city);
  number('latitude', facts.latitude);
  number('longitude', facts.longitude);
  text('time_zone', facts.timeZone);
  text('asn', facts.asn);
  text('asn_org', facts.asnOrg);
  text('hostname', hostname ?? '');
  // Go's net/http reads an absent User-Agent and an empty one alike: no user_agent key.
  if (userAgent) {
    const { product, version, comment, raw } = parseUserAgent(userAgent);
    const inner = [
      ['product', product],
      ['version', version],
      ['comment', comment],
      ['raw_value', raw],
    ]
      .filter(([, value]) => value !== '')
      .map(([key, value]) => `    "${key}": ${goString(value as string)}`);
    lines.push(`"user_agent": {\n${inner.join(',\n')}\n  }`);
  }
  return `{\n  ${lines.join(',\n  ')}\n}`;
}
