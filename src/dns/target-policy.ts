import { isIP } from 'node:net';
import { type Cidr, cidrContains, parseCidr } from '../net/cidr.ts';
import { parseIp, unmapIpv4 } from '../net/ip-address.ts';
import { classifySpecialAddress, embeddedIpv4, isForbiddenTarget } from '../net/special-addresses.ts';
import { DnsError } from './errors.ts';
import type { Resolver } from './resolver.ts';

/**
 * The one place that decides whether the service may connect to a target (TLS checks, WHOIS
 * referral hosts, ping, traceroute, the HTTP check and its redirects). The name is resolved once, through the project's resolver,
 * and the caller connects to the returned address: there is no second resolution for DNS
 * rebinding to slip a private address through.
 */
/** How a refusal says the name has no address: a monitor takes it for the target failing, not for a bad request. */
export const NO_ADDRESS = 'the name does not resolve';

export type TargetResolution =
  | { ok: true; host: string; address: string; family: 4 | 6 }
  /** forbidden: private/loopback/metadata…; no-address: the name has none; dns-failure: lookup failed. */
  | { ok: false; reason: 'forbidden' | 'no-address' | 'dns-failure'; message: string };

export interface TargetPolicy {
  /**
   * ALLOW_PRIVATE_TARGETS, for operators testing their own networks: false refuses every
   * special-purpose address, true allows them all, and a list of CIDRs allows only the addresses
   * inside them (the metadata address stays closed unless a range holds it).
   */
  readonly allowPrivate: boolean | readonly Cidr[];
}

/**
 * Reads ALLOW_PRIVATE_TARGETS into the one policy object every consumer (probes, /ssl, WHOIS
 * referrals, the HTTP check) receives: `true`/`false` (and their usual spellings), or a
 * comma-separated list of CIDRs or addresses, IPv4 and IPv6. Throws a message for the operator.
 */
export function parseTargetPolicy(raw: string | undefined): TargetPolicy {
  const text = (raw ?? '').trim();
  const word = text.toLowerCase();
  if (['', 'false', '0', 'no', 'off'].includes(word)) return Object.freeze({ allowPrivate: false });
  if (['true', '1', 'yes', 'on'].includes(word)) return Object.freeze({ allowPrivate: true });
  const ranges: Cidr[] = [];
  for (const item of text.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const parsed = parseCidr(entry);
    if (!parsed.ok) {
      throw new Error(
        `must be true, false or a comma-separated list of CIDRs; "${entry}" is not a CIDR (${parsed.reason})`,
      );
    }
    ranges.push(parsed.cidr);
  }
  if (ranges.length === 0) throw new Error(`must be true, false or a comma-separated list of CIDRs, got "${raw}"`);
  return Object.freeze({ allowPrivate: Object.freeze(ranges) });
}

/** Whether the operator's ranges hold `ip` (an IPv4-mapped IPv6 address as its IPv4 address). */
function insideAllowedRanges(ip: string, ranges: readonly Cidr[]): boolean {
  const address = parseIp(ip);
  if (address === null) return false;
  const unmapped = unmapIpv4(address);
  return ranges.some((range) => cidrContains(range, unmapped));
}

/** Null when the service may connect to `ip`, else the reason in words for a 400. */
export function forbiddenTargetReason(ip: string, policy: TargetPolicy): string | null {
  const allowed = policy.allowPrivate;
  if (allowed === true || !isForbiddenTarget(ip)) return null;
  if (allowed !== false && insideAllowedRanges(ip, allowed)) return null;
  // A 6to4 or Teredo address refused for an IPv4 address it embeds is as open as those addresses.
  if (classifySpecialAddress(ip)?.kind === 'transition') {
    const refused = embeddedIpv4(ip).filter(
      (embedded) =>
        isForbiddenTarget(embedded.address) && !(allowed !== false && insideAllowedRanges(embedded.address, allowed)),
    );
    const first = refused[0];
    if (first === undefined) return null;
    return `${ip} is a ${first.via} address for ${first.address}, which is ${describe(first.address)}${REFUSED}`;
  }
  return `${ip} is ${describe(ip)}${REFUSED}`;
}

const REFUSED =
  '; the service does not connect to private, loopback, link-local, multicast, reserved or metadata addresses';

function describe(ip: string): string {
  const special = classifySpecialAddress(ip);
  return special
    ? `${/^[aeiou]/.test(special.kind) ? 'an' : 'a'} ${special.kind} address (${special.name}, ${special.range})`
    : 'not a public address';
}

/**
 * Resolves `host` (a name or an IP literal) to the single address to connect to, preferring IPv4
 * when both families exist unless `family` says otherwise, and applies the policy to that address.
 */
export async function resolveTarget(
  host: string,
  options: { resolver: Resolver; policy: TargetPolicy; family?: 4 | 6 | 'any' },
): Promise<TargetResolution> {
  let addresses: { address: string; family: 4 | 6 }[];
  try {
    addresses = await options.resolver.resolveAddresses(host, options.family ?? 'any');
  } catch (error) {
    if (error instanceof DnsError) {
      return { ok: false, reason: 'dns-failure', message: `could not resolve ${host}: ${error.message}` };
    }
    throw error;
  }
  const chosen = addresses.find((entry) => entry.family === 4) ?? addresses[0];
  if (!chosen) {
    const kind = options.family === 4 ? 'IPv4 ' : options.family === 6 ? 'IPv6 ' : '';
    return { ok: false, reason: 'no-address', message: `${host} has no ${kind}address (${NO_ADDRESS})` };
  }
  const refusal = forbiddenTargetReason(chosen.address, options.policy);
  if (refusal)
    return { ok: false, reason: 'forbidden', message: isIP(host) ? refusal : `${host} resolves to ${refusal}` };
  return { ok: true, host, address: chosen.address, family: chosen.family };
}
