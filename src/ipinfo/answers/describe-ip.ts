import { type IpAddress, parseIp, unmapIpv4 } from '../../net/ip-address.ts';
import { classifyAddress, type SpecialAddressKind } from '../../net/special-addresses.ts';
import { type NetworkRpki, networkRpki } from '../../rpki/answers.ts';
import type { AnonymityFlags, Location } from '../data/geo.ts';
import type { IpData } from '../data/ip-data.ts';
import type { Network } from '../data/network.ts';
import { type ConnectionType, connectionType, type Ipv4Class, ipv4Class } from './classify.ts';

/** The answer of /api/v1/json without `hostname` (which needs the network; see hostname.ts). */
export interface IpDescription {
  ip: string;
  ipv6?: string;
  type?: ConnectionType;
  class?: Ipv4Class;
  special?: { kind: SpecialAddressKind; range: string; name: string; rfc: string };
  location?: Location;
  network?: { provider?: string; asn?: string; route?: string; rpki?: NetworkRpki };
  security: Security;
}

export type SecuritySource =
  | 'tor-exit-list'
  | 'vpn-networks'
  | 'vpn-asns'
  | 'datacenter-networks'
  | 'datacenter-asns'
  | 'proxy-list'
  | 'anonymous-ip-database';

export interface Security {
  bogon: boolean;
  proxy?: boolean;
  vpn?: boolean;
  tor?: boolean;
  hosting?: boolean;
  sources: SecuritySource[];
}

/**
 * Everything the loaded data says about one client address, synchronously and from one snapshot.
 * Special-purpose addresses that are not globally reachable (private, loopback, link-local...)
 * are bogons: nothing is looked up for them, since any location or network would be invented.
 */
export function describeIp(ip: string, data: IpData | undefined): IpDescription {
  const parsed = parseIp(ip);
  // Not an IP (a peer on a Unix socket): nothing can be said about it, least of all that it is public.
  if (parsed === null) return { ip, security: { bogon: true, sources: [] } };
  const address = unmapIpv4(parsed);
  const answer: IpDescription = { ip, security: { bogon: false, sources: [] } };
  if (address.version === 6) answer.ipv6 = ip;
  const ipClass = ipv4Class(address);
  if (ipClass !== undefined) answer.class = ipClass;
  const special = classifyAddress(address);
  if (special !== null) {
    answer.special = { kind: special.kind, range: special.range, name: special.name, rfc: special.rfc };
    if (!special.globallyReachable) {
      answer.security.bogon = true;
      return answer;
    }
  }
  if (data === undefined) return answer;

  const { location, network: networks } = data;
  const city = location?.lookupCityAddress ? location.lookupCityAddress(address) : location?.lookupCity(ip);
  if (city !== undefined && !isEmpty(city.location)) answer.location = city.location;
  const network = networks?.lookupNetworkAddress ? networks.lookupNetworkAddress(address) : networks?.lookupNetwork(ip);
  const shown = network && presentNetwork(network);
  if (shown !== undefined) answer.network = shown;
  if (
    shown !== undefined &&
    data.rpki !== undefined &&
    network?.route !== undefined &&
    network.asnNumber !== undefined
  ) {
    shown.rpki = networkRpki(data.rpki, address, network.route, network.asnNumber);
  }

  const anonymity = data.anonymity?.lookupAnonymity(ip);
  answer.security = securityOf(address, data, network?.asnNumber, anonymity);
  const type = connectionType({
    userType: city?.traits.userType,
    connectionType: data.connectionType?.lookupConnectionType(ip) ?? city?.traits.connectionType,
    hostingListed: answer.security.hosting === true,
    asOrganization: network?.provider,
  });
  if (type !== undefined) answer.type = type;
  return answer;
}

function presentNetwork(network: Network): IpDescription['network'] | undefined {
  const shown: NonNullable<IpDescription['network']> = {};
  if (network.provider !== undefined) shown.provider = network.provider;
  if (network.asn !== undefined) shown.asn = network.asn;
  if (network.route !== undefined) shown.route = network.route;
  return Object.keys(shown).length > 0 ? shown : undefined;
}

/**
 * Each indicator is true when any loaded source lists the address, false only when a loaded
 * source that covers the address's family does not, and absent otherwise: a `false` is never
 * inferred from data that could not have said `true`.
 */
function securityOf(
  address: IpAddress,
  data: IpData,
  asn: number | undefined,
  anonymity: AnonymityFlags | undefined,
): Security {
  const family = address.version === 4 ? 'ipv4' : 'ipv6';
  const { coverage } = data.feeds;
  const listed = data.feeds.lookupAddress(address, asn);
  const sources = sourcesOf(data, family, asn !== undefined, anonymity !== undefined);

  const byDatabase = anonymity !== undefined;
  const security: Security = { bogon: false, sources };
  const tor = indicator(listed.tor || anonymity?.tor === true, coverage.tor[family] || byDatabase);
  const vpn = indicator(listed.vpn || anonymity?.vpn === true, coverage.vpn[family] || byDatabase);
  const hosting = indicator(listed.hosting || anonymity?.hosting === true, coverage.datacenter[family] || byDatabase);
  const openProxy = listed.proxy || anonymity?.publicProxy === true || anonymity?.residentialProxy === true;
  // Only the open-proxy list and the Anonymous IP database know open proxies, so only they can make `proxy` false.
  const proxy = indicator(tor === true || vpn === true || openProxy, coverage.proxy[family] || byDatabase);
  if (proxy !== undefined) security.proxy = proxy;
  if (vpn !== undefined) security.vpn = vpn;
  if (tor !== undefined) security.tor = tor;
  if (hosting !== undefined) security.hosting = hosting;
  return security;
}

/**
 * The sources consulted depend only on the data, the family and which lookups answered: made once
 * per combination and snapshot and shared, frozen, by every answer (an array per item was a
 * measurable part of a batch item's garbage), by a number rather than a string key (building the
 * key was 2.5% of a batch item's profile).
 */
const sourceLists = new WeakMap<IpData, (readonly SecuritySource[] | undefined)[]>();
function sourcesOf(data: IpData, family: 'ipv4' | 'ipv6', hasAsn: boolean, byDatabase: boolean): SecuritySource[] {
  let lists = sourceLists.get(data);
  if (lists === undefined) {
    lists = [];
    sourceLists.set(data, lists);
  }
  const key = (family === 'ipv4' ? 0 : 4) + (hasAsn ? 2 : 0) + (byDatabase ? 1 : 0);
  let sources = lists[key];
  if (sources === undefined) {
    const { coverage } = data.feeds;
    const list: SecuritySource[] = [];
    if (coverage.tor[family]) list.push('tor-exit-list');
    if (coverage.vpn[family]) list.push('vpn-networks');
    if (hasAsn && data.feedsLoaded.has('vpn-asn')) list.push('vpn-asns');
    if (coverage.datacenter[family]) list.push('datacenter-networks');
    if (hasAsn && data.feedsLoaded.has('datacenter-asn')) list.push('datacenter-asns');
    if (coverage.proxy[family]) list.push('proxy-list');
    if (byDatabase) list.push('anonymous-ip-database');
    sources = Object.freeze(list);
    lists[key] = sources;
  }
  return sources as SecuritySource[];
}

function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}

function indicator(listed: boolean, covered: boolean): boolean | undefined {
  if (listed) return true;
  return covered ? false : undefined;
}
