import type { Cidr } from '../../net/cidr.ts';
import { type IpAddress, parseIp, unmapIpv4 } from '../../net/ip-address.ts';
import { CidrColumns, type CidrSet } from './cidr-set.ts';

/** A feed's networks: as loaded from its files (feed-files.ts), or as a list. */
type Networks = CidrColumns | readonly Cidr[];

/** Parsed feed contents; a feed that is not configured (or failed to load) is simply absent. */
export interface SecurityFeedData {
  readonly torExits?: Networks;
  readonly vpnNetworks?: Networks;
  readonly datacenterNetworks?: Networks;
  /** Open proxies (FireHOL's firehol_proxies list): addresses and networks. */
  readonly proxyNetworks?: Networks;
  readonly vpnAsns?: readonly number[];
  readonly datacenterAsns?: readonly number[];
}

export interface SecurityVerdict {
  readonly tor: boolean;
  readonly vpn: boolean;
  readonly hosting: boolean;
  /** The address is on the open-proxy list. */
  readonly proxy: boolean;
}

/** The address families a feed has entries for. */
export interface FeedCoverage {
  readonly ipv4: boolean;
  readonly ipv6: boolean;
}

export interface SecurityFeeds {
  /**
   * - tor: the address is a listed exit relay.
   * - vpn: the address is in a VPN-provider network, or `asn` is a listed VPN-provider ASN.
   * - hosting: the address is in a datacenter network, or `asn` is a listed datacenter ASN.
   * - proxy: the address is in a network of the open-proxy list.
   * The flags are independent: a VPN exit in a datacenter is both vpn and hosting. The ASN rules
   * exist because X4BNet builds its CIDR lists from those ASNs' announcements, so the ASN catches
   * prefixes announced after the snapshot was taken.
   */
  lookup(ip: string, asn?: number): SecurityVerdict;
  /** As lookup, for an address already parsed (and unmapped) once per request. */
  lookupAddress(address: IpAddress, asn?: number): SecurityVerdict;
  /** Whether the VPN and datacenter ASN lists name the AS (false also when a list is not loaded). */
  lookupAsn(asn: number): { readonly vpn: boolean; readonly hosting: boolean };
  /**
   * Which families each feed's CIDR list covers. A `false` from a feed means "not listed"; it is
   * only evidence where the feed lists that family at all: the Tor Project's bulk exit list, for
   * one, has only IPv4 addresses, so it cannot say that an IPv6 client is not a Tor exit.
   */
  readonly coverage: {
    readonly tor: FeedCoverage;
    readonly vpn: FeedCoverage;
    readonly datacenter: FeedCoverage;
    readonly proxy: FeedCoverage;
  };
}

/**
 * One range table per feed rather than one combined table: a combined table keeps only the most
 * specific entry per address, which would hide a datacenter /16 under a VPN /24 inside it.
 */
export function buildSecurityFeeds(data: SecurityFeedData): SecurityFeeds {
  const tor = membership(data.torExits);
  const vpn = membership(data.vpnNetworks);
  const datacenter = membership(data.datacenterNetworks);
  const proxy = membership(data.proxyNetworks);
  const vpnAsns = new Set(data.vpnAsns);
  const datacenterAsns = new Set(data.datacenterAsns);
  function lookupAddress(address: IpAddress, asn?: number): SecurityVerdict {
    const byAsn = (asns: Set<number>) => asn !== undefined && asns.has(asn);
    return {
      tor: tor.has(address),
      vpn: vpn.has(address) || byAsn(vpnAsns),
      hosting: datacenter.has(address) || byAsn(datacenterAsns),
      proxy: proxy.has(address),
    };
  }
  return {
    lookupAddress,
    lookupAsn: (asn) => ({ vpn: vpnAsns.has(asn), hosting: datacenterAsns.has(asn) }),
    lookup(ip: string, asn?: number): SecurityVerdict {
      const address = parseIp(ip);
      return address === null
        ? { tor: false, vpn: false, hosting: false, proxy: false }
        : lookupAddress(unmapIpv4(address), asn);
    },
    coverage: { tor: tor.coverage, vpn: vpn.coverage, datacenter: datacenter.coverage, proxy: proxy.coverage },
  };
}

function membership(networks: Networks = []): CidrSet {
  if (networks instanceof CidrColumns) return networks.build();
  const columns = new CidrColumns();
  for (const cidr of networks) columns.add(cidr);
  return columns.build();
}
