import { isIP } from 'node:net';
import { classifySpecialAddress, isForbiddenTarget } from '../net/special-addresses.ts';
import { DnsError } from './errors.ts';
import type { Resolver } from './resolver.ts';

/**
 * The one place that decides whether the service may connect to a target (TLS checks, WHOIS
 * referral hosts, ping, traceroute). The name is resolved once, through the project's resolver,
 * and the caller connects to the returned address: there is no second resolution for DNS
 * rebinding to slip a private address through.
 */
export type TargetResolution =
  | { ok: true; host: string; address: string; family: 4 | 6 }
  /** forbidden: private/loopback/metadata…; no-address: the name has none; dns-failure: lookup failed. */
  | { ok: false; reason: 'forbidden' | 'no-address' | 'dns-failure'; message: string };

export interface TargetPolicy {
  /** ALLOW_PRIVATE_TARGETS: operators testing their own networks may reach private addresses. */
  readonly allowPrivate: boolean;
}

/** Null when the service may connect to `ip`, else the reason in words for a 400. */
export function forbiddenTargetReason(ip: string, policy: TargetPolicy): string | null {
  if (policy.allowPrivate || !isForbiddenTarget(ip)) return null;
  const special = classifySpecialAddress(ip);
  const what = special
    ? `${/^[aeiou]/.test(special.kind) ? 'an' : 'a'} ${special.kind} address (${special.name}, ${special.range})`
    : 'not a public address';
  return `${ip} is ${what}; the service does not connect to private, loopback, link-local, multicast, reserved or metadata addresses`;
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
    return { ok: false, reason: 'no-address', message: `${host} has no ${kind}address (the name does not resolve)` };
  }
  const refusal = forbiddenTargetReason(chosen.address, options.policy);
  if (refusal)
    return { ok: false, reason: 'forbidden', message: isIP(host) ? refusal : `${host} resolves to ${refusal}` };
  return { ok: true, host, address: chosen.address, family: chosen.family };
}
