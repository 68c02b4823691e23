import { type Cidr, cidrContains, formatCidr, parseCidr } from './cidr.ts';
import { formatIp, type IpAddress, parseIp, unmapIpv4 } from './ip-address.ts';

/**
 * The IANA special-purpose registries (IPv4 as of 2024-10, IPv6 as of 2024-10-22), plus what an
 * "is this a real public address?" check also needs: multicast, the IPv6 space "Reserved by IETF"
 * (outside 2000::/3, fc00::/7, fe80::/10 and ff00::/8), and cloud instance-metadata endpoints.
 * - The most specific entry wins (192.0.0.9/32 PCP anycast inside 192.0.0.0/24).
 * - `::ffff:a.b.c.d` is classified as a.b.c.d: it is an IPv4 peer seen by a dual-stack socket.
 * - `64:ff9b::a.b.c.d` (NAT64, RFC 6052) is classified as a.b.c.d: a packet to it leaves the NAT64
 *   gateway towards a.b.c.d, so it is exactly as private or public.
 * - Teredo, 6to4 and the retired 6to4 relay anycast are 'transition' and globally reachable;
 *   isForbiddenTarget also judges the IPv4 addresses they embed: a relay delivers to them.
 * - Multicast is not globally reachable: never a valid unicast source or a target here, and bogon
 *   lists (Team Cymru) include 224.0.0.0/4.
 */
export type SpecialAddressKind =
  | 'this-network'
  | 'unspecified'
  | 'private'
  | 'cgnat'
  | 'loopback'
  | 'link-local'
  | 'metadata'
  | 'protocol-assignment'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'anycast'
  | 'transition';

export interface SpecialAddress {
  readonly kind: SpecialAddressKind;
  readonly range: string;
  readonly name: string;
  readonly rfc: string;
  /** The registry's "Globally Reachable" column: false means a bogon on the public internet. */
  readonly globallyReachable: boolean;
}

type Row = readonly [range: string, kind: SpecialAddressKind, name: string, rfc: string, global: boolean];

const IPV4_ROWS: readonly Row[] = [
  ['0.0.0.0/8', 'this-network', '"This network"', 'RFC 791', false],
  ['0.0.0.0/32', 'unspecified', '"This host on this network"', 'RFC 1122', false],
  ['10.0.0.0/8', 'private', 'Private-Use', 'RFC 1918', false],
  ['100.64.0.0/10', 'cgnat', 'Shared Address Space', 'RFC 6598', false],
  ['127.0.0.0/8', 'loopback', 'Loopback', 'RFC 1122', false],
  ['169.254.0.0/16', 'link-local', 'Link Local', 'RFC 3927', false],
  ['172.16.0.0/12', 'private', 'Private-Use', 'RFC 1918', false],
  ['192.0.0.0/24', 'protocol-assignment', 'IETF Protocol Assignments', 'RFC 6890', false],
  ['192.0.0.0/29', 'protocol-assignment', 'IPv4 Service Continuity Prefix', 'RFC 7335', false],
  ['192.0.0.8/32', 'protocol-assignment', 'IPv4 dummy address', 'RFC 7600', false],
  ['192.0.0.9/32', 'anycast', 'Port Control Protocol Anycast', 'RFC 7723', true],
  ['192.0.0.10/32', 'anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true],
  ['192.0.0.170/32', 'protocol-assignment', 'NAT64/DNS64 Discovery', 'RFC 7050', false],
  ['192.0.0.171/32', 'protocol-assignment', 'NAT64/DNS64 Discovery', 'RFC 7050', false],
  ['192.0.2.0/24', 'documentation', 'Documentation (TEST-NET-1)', 'RFC 5737', false],
  ['192.31.196.0/24', 'anycast', 'AS112-v4', 'RFC 7535', true],
  ['192.52.193.0/24', 'anycast', 'AMT', 'RFC 7450', true],
  ['192.88.99.0/24', 'transition', 'Deprecated (6to4 Relay Anycast)', 'RFC 7526', true],
  ['192.168.0.0/16', 'private', 'Private-Use', 'RFC 1918', false],
  ['192.175.48.0/24', 'anycast', 'Direct Delegation AS112 Service', 'RFC 7534', true],
  ['198.18.0.0/15', 'benchmarking', 'Benchmarking', 'RFC 2544', false],
  ['198.51.100.0/24', 'documentation', 'Documentation (TEST-NET-2)', 'RFC 5737', false],
  ['203.0.113.0/24', 'documentation', 'Documentation (TEST-NET-3)', 'RFC 5737', false],
  ['224.0.0.0/4', 'multicast', 'Multicast', 'RFC 5771', false],
  ['233.252.0.0/24', 'documentation', 'MCAST-TEST-NET', 'RFC 5771', false],
  ['240.0.0.0/4', 'reserved', 'Reserved', 'RFC 1112', false],
  ['255.255.255.255/32', 'broadcast', 'Limited Broadcast', 'RFC 919', false],
  // Instance metadata services answer credentials to whoever can reach them: an SSRF prize.
  ['169.254.169.254/32', 'metadata', 'Cloud instance metadata (AWS, GCP, Azure, OCI)', 'vendor', false],
  ['169.254.170.2/32', 'metadata', 'AWS ECS task metadata', 'vendor', false],
  ['100.100.100.200/32', 'metadata', 'Alibaba Cloud instance metadata', 'vendor', false],
];

const IPV6_ROWS: readonly Row[] = [
  ['::/128', 'unspecified', 'Unspecified Address', 'RFC 4291', false],
  ['::1/128', 'loopback', 'Loopback Address', 'RFC 4291', false],
  ['64:ff9b:1::/48', 'private', 'IPv4-IPv6 Translat. (local use)', 'RFC 8215', false],
  ['100::/64', 'reserved', 'Discard-Only Address Block', 'RFC 6666', false],
  ['2001::/23', 'protocol-assignment', 'IETF Protocol Assignments', 'RFC 2928', false],
  ['2001::/32', 'transition', 'TEREDO', 'RFC 4380', true],
  ['2001:1::1/128', 'anycast', 'Port Control Protocol Anycast', 'RFC 7723', true],
  ['2001:1::2/128', 'anycast', 'Traversal Using Relays around NAT Anycast', 'RFC 8155', true],
  ['2001:1::3/128', 'anycast', 'DNS-SD Service Registration Protocol Anycast', 'RFC 9665', true],
  ['2001:2::/48', 'benchmarking', 'Benchmarking', 'RFC 5180', false],
  ['2001:3::/32', 'anycast', 'AMT', 'RFC 7450', true],
  ['2001:4:112::/48', 'anycast', 'AS112-v6', 'RFC 7535', true],
  ['2001:10::/28', 'reserved', 'Deprecated (previously ORCHID)', 'RFC 4843', false],
  ['2001:20::/28', 'protocol-assignment', 'ORCHIDv2', 'RFC 7343', true],
  ['2001:30::/28', 'protocol-assignment', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', 'RFC 9374', true],
  ['2001:db8::/32', 'documentation', 'Documentation', 'RFC 3849', false],
  ['2002::/16', 'transition', '6to4', 'RFC 3056', true],
  ['2620:4f:8000::/48', 'anycast', 'Direct Delegation AS112 Service', 'RFC 7534', true],
  ['3fff::/20', 'documentation', 'Documentation', 'RFC 9637', false],
  ['5f00::/16', 'reserved', 'Segment Routing (SRv6) SIDs', 'RFC 9602', false],
  ['fc00::/7', 'unique-local', 'Unique-Local', 'RFC 4193', false],
  ['fe80::/10', 'link-local', 'Link-Local Unicast', 'RFC 4291', false],
  ['ff00::/8', 'multicast', 'Multicast', 'RFC 4291', false],
  ['fd00:ec2::254/128', 'metadata', 'AWS instance metadata (IPv6)', 'vendor', false],
  ...['::/8', '100::/8', '200::/7', '400::/6', '800::/5', '1000::/4', '4000::/3', '6000::/3', '8000::/3']
    .concat(['a000::/3', 'c000::/3', 'e000::/4', 'f000::/5', 'f800::/6', 'fe00::/9', 'fec0::/10'])
    .map((range): Row => [range, 'reserved', 'Reserved by IETF', 'RFC 4291', false]),
];

type Entry = { readonly cidr: Cidr; readonly answer: SpecialAddress };

// Most specific first, so the first containing entry is the answer.
const ENTRIES: readonly Entry[] = [...IPV4_ROWS, ...IPV6_ROWS]
  .map(([range, kind, name, rfc, globallyReachable]): Entry => {
    const parsed = parseCidr(range);
    if (!parsed.ok) throw new Error(`special-address table: ${range}: ${parsed.reason}`);
    return {
      cidr: parsed.cidr,
      answer: Object.freeze({ kind, range: formatCidr(parsed.cidr), name, rfc, globallyReachable }),
    };
  })
  .sort((a, b) => b.cidr.prefixLength - a.cidr.prefixLength);

const NAT64_PREFIX = 0x64ff9bn << 96n; // 64:ff9b::/96

/** Null for an ordinary public address and for anything not an IP literal (`127.1`, `fe80::1%eth0`). */
export function classifySpecialAddress(ip: string): SpecialAddress | null {
  const address = parseIp(ip);
  return address === null ? null : classifyAddress(address);
}

export function classifyAddress(parsed: IpAddress): SpecialAddress | null {
  let address = unmapIpv4(parsed);
  if (address.version === 6 && (address.value & ~0xffffffffn) === NAT64_PREFIX) {
    address = { version: 4, value: Number(address.value & 0xffffffffn) };
  }
  for (const entry of ENTRIES) {
    if (cidrContains(entry.cidr, address)) return entry.answer;
  }
  return null;
}

/** True for an address that cannot be a public internet peer; false for public and non-IP input. */
export function isBogon(ip: string): boolean {
  const special = classifySpecialAddress(ip);
  return special !== null && !special.globallyReachable;
}

/** SSL, ping, traceroute and WHOIS referrals do not connect to these. */
export const FORBIDDEN_TARGET_KINDS: ReadonlySet<SpecialAddressKind> = new Set<SpecialAddressKind>([
  'private',
  'loopback',
  'link-local',
  'multicast',
  'unspecified',
  'broadcast',
  'reserved',
  'metadata',
  'cgnat',
  'unique-local',
  'this-network',
  'documentation',
  'benchmarking',
]);

export interface EmbeddedIpv4 {
  readonly via: '6to4' | 'Teredo client' | 'Teredo server';
  readonly address: string;
}

const SIX_TO_FOUR_PREFIX = 0x2002n; // 2002::/16
const TEREDO_PREFIX = 0x20010000n; // 2001::/32

/**
 * The IPv4 addresses an IPv6 address hands its packets to: 6to4 (RFC 3056) carries it in bits
 * 16-47; Teredo (RFC 4380) carries its server in bits 32-63 and its client, inverted, in the last
 * 32 bits. Empty for every other address.
 */
export function embeddedIpv4(ip: string): EmbeddedIpv4[] {
  const address = parseIp(ip);
  if (address === null || address.version !== 6) return [];
  const ipv4 = (value: bigint) => formatIp({ version: 4, value: Number(value & 0xffffffffn) });
  if (address.value >> 112n === SIX_TO_FOUR_PREFIX) return [{ via: '6to4', address: ipv4(address.value >> 80n) }];
  if (address.value >> 96n === TEREDO_PREFIX) {
    return [
      { via: 'Teredo client', address: ipv4(address.value ^ 0xffffffffn) },
      { via: 'Teredo server', address: ipv4(address.value >> 64n) },
    ];
  }
  return [];
}

function isForbiddenAddress(address: IpAddress): boolean {
  const special = classifyAddress(address);
  return special !== null && (FORBIDDEN_TARGET_KINDS.has(special.kind) || !special.globallyReachable);
}

/**
 * Fails closed: input that is not a plain IP literal is refused (callers resolve names first and
 * check each address). Any entry not globally reachable is refused too, so a registry entry added
 * later under a new kind is covered. A 6to4 or Teredo address is refused when an IPv4 address it
 * embeds is: `2002:7f00:2::` reaches 127.0.0.2 through any 6to4 relay that decapsulates it.
 */
export function isForbiddenTarget(ip: string): boolean {
  const address = parseIp(ip);
  if (address === null) return true;
  if (isForbiddenAddress(address)) return true;
  return embeddedIpv4(ip).some((embedded) => isForbiddenTarget(embedded.address));
}
