import { type IpAddress, parseIp, unmapIpv4 } from '../../net/ip-address.ts';

export type Ipv4Class = 'A' | 'B' | 'C' | 'D' | 'E';

/**
 * The pre-CIDR (RFC 791 / RFC 1166) class of an IPv4 address, from its leading bits: 0 -> A,
 * 10 -> B, 110 -> C, 1110 -> D (multicast), 1111 -> E. Historical, shown because users ask for it.
 * A mapped `::ffff:a.b.c.d` is classed as a.b.c.d; other IPv6 and non-IP input -> undefined.
 */
export function ipv4Class(ip: string | IpAddress): Ipv4Class | undefined {
  const parsed = typeof ip === 'string' ? parseIp(ip) : ip;
  if (parsed === null) return undefined;
  const address = unmapIpv4(parsed);
  if (address.version !== 4) return undefined;
  const firstOctet = address.value >>> 24;
  if (firstOctet < 128) return 'A';
  if (firstOctet < 192) return 'B';
  if (firstOctet < 224) return 'C';
  if (firstOctet < 240) return 'D';
  return 'E';
}

export type ConnectionType = 'residential' | 'business' | 'hosting' | 'education' | 'mobile' | 'government';

export interface ConnectionEvidence {
  /** MaxMind `traits.user_type` (GeoIP2 Enterprise / Insights), e.g. 'cellular', 'hosting'. */
  readonly userType?: string | undefined;
  /** MaxMind `connection_type` (GeoIP2 Connection-Type / Enterprise), e.g. 'Cable/DSL'. */
  readonly connectionType?: string | undefined;
  /** The address or its ASN is on a datacenter feed, or MaxMind says `is_hosting_provider`. */
  readonly hostingListed?: boolean;
  /** The AS organisation name, e.g. 'Massachusetts Institute of Technology'. */
  readonly asOrganization?: string | undefined;
}

/**
 * The `type` field. The first rule that applies decides; undefined when none does, because a
 * wrong "residential" is worse than no answer.
 *
 * 1. MaxMind user_type (an operator's paid database is the best evidence), case-insensitive:
 *      residential, dialup                                  -> residential
 *      business, cafe, traveler                             -> business
 *      hosting, content_delivery_network, search_engine_spider -> hosting
 *      cellular                                             -> mobile
 *      college, school, library, university                 -> education
 *      government, military                                 -> government
 *    (router and unknown values fall through.)
 * 2. hostingListed                                          -> hosting
 *    (before connection_type: MaxMind files datacenter ranges as 'Corporate'.)
 * 3. MaxMind connection_type, case-insensitive:
 *      Cellular -> mobile; Cable/DSL, Dialup -> residential; Corporate -> business
 *    (Satellite falls through: it serves homes, ships and businesses alike.)
 * 4. AS organisation name, whole-word and case-insensitive, first group that matches:
 *      education:  universi… (University, Universidad, Universität…), college, school(s),
 *                  academy, academic, education(al), edu, .edu
 *      government: government, ministry, ministerio, gov, .gov
 *      mobile:     mobile, mobil, cellular, wireless
 *      hosting:    hosting, datacenter, data center/centre, cloud, vps, colo, colocation,
 *                  server(s)
 *    Institution words come first so "University Cloud Services" is education. 'Telecom',
 *    'Communications' and 'Broadband' are deliberately not rules: those carriers sell home,
 *    business and mobile lines alike. Nothing in a name says "residential" or "business".
 */
export function connectionType(evidence: ConnectionEvidence): ConnectionType | undefined {
  const byUserType = fromTable(USER_TYPES, evidence.userType);
  if (byUserType !== undefined) return byUserType;
  if (evidence.hostingListed === true) return 'hosting';
  const byConnectionType = fromTable(CONNECTION_TYPES, evidence.connectionType);
  if (byConnectionType !== undefined) return byConnectionType;
  return typeOfName(evidence.asOrganization ?? '');
}

/** By AS name, remembered: a batch's addresses share a few hundred names, and four regexps per item cost more than a lookup. */
const byName = new Map<string, ConnectionType | null>();
function typeOfName(name: string): ConnectionType | undefined {
  let type = byName.get(name);
  if (type === undefined) {
    type = AS_NAME_RULES.find(([, pattern]) => pattern.test(name))?.[0] ?? null;
    if (byName.size >= 10_000) byName.clear();
    byName.set(name, type);
  }
  return type ?? undefined;
}

const USER_TYPES: Readonly<Record<string, ConnectionType>> = {
  residential: 'residential',
  dialup: 'residential',
  business: 'business',
  cafe: 'business',
  traveler: 'business',
  hosting: 'hosting',
  content_delivery_network: 'hosting',
  search_engine_spider: 'hosting',
  cellular: 'mobile',
  college: 'education',
  school: 'education',
  library: 'education',
  university: 'education',
  government: 'government',
  military: 'government',
};

const CONNECTION_TYPES: Readonly<Record<string, ConnectionType>> = {
  cellular: 'mobile',
  'cable/dsl': 'residential',
  dialup: 'residential',
  corporate: 'business',
};

const AS_NAME_RULES: readonly (readonly [ConnectionType, RegExp])[] = [
  ['education', /\buniversi|\bcolleges?\b|\bschools?\b|\bacadem(y|ic)\b|\beducation(al)?\b|\bedu\b/i],
  ['government', /\bgovernment\b|\bministry\b|\bministerio\b|\bgov\b/i],
  ['mobile', /\bmobile?\b|\bcellular\b|\bwireless\b/i],
  ['hosting', /\bhosting\b|\bdata ?cent(er|re)s?\b|\bcloud\b|\bvps\b|\bcolo(cation)?\b|\bservers?\b/i],
];

// `Object.hasOwn`: a user_type of 'constructor' must not find Object.prototype's member.
function fromTable(
  table: Readonly<Record<string, ConnectionType>>,
  value: string | undefined,
): ConnectionType | undefined {
  const key = value?.trim().toLowerCase() ?? '';
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
