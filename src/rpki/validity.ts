import type { IpAddress } from '../net/ip-address.ts';
import { forEachCovering, type Vrp, type VrpSet, vrpsOf } from './vrp-set.ts';

export type RpkiState = 'valid' | 'invalid' | 'not-found';

/** Why a route is invalid: no covering VRP names its origin (`as`), or those that do allow only shorter prefixes (`length`). */
export type InvalidReason = 'as' | 'length';

export interface RouteValidity {
  readonly state: RpkiState;
  readonly reason?: InvalidReason;
  /** Covering VRPs that match: the origin's AS, and a maxLength the route fits. */
  readonly matched: Vrp[];
  /** Covering VRPs of another AS (AS0 included: RFC 7607 lets no route originate from AS0). */
  readonly unmatchedAs: Vrp[];
  /** Covering VRPs of the origin's AS whose maxLength is shorter than the route. */
  readonly unmatchedLength: Vrp[];
  /** Every covering VRP, the most specific prefix first. */
  readonly covering: Vrp[];
}

export type Match = 'matched' | 'unmatchedAs' | 'unmatchedLength';

/** RFC 6811 §2 for one covering VRP of a route of `prefixLength` originated by `asn`. */
export function matchOf(vrpAsn: number, vrpMaxLength: number, asn: number, prefixLength: number): Match {
  if (vrpAsn !== asn || asn === 0) return 'unmatchedAs';
  return prefixLength > vrpMaxLength ? 'unmatchedLength' : 'matched';
}

/** The route's state from what its covering VRPs were: one match makes it valid, any cover without one invalid. */
export function stateOf(seen: Readonly<Record<Match, boolean>>): { state: RpkiState; reason?: InvalidReason } {
  if (seen.matched) return { state: 'valid' };
  if (!seen.unmatchedAs && !seen.unmatchedLength) return { state: 'not-found' };
  return { state: 'invalid', reason: seen.unmatchedLength ? 'length' : 'as' };
}

/**
 * RFC 6811 §2 origin validation of the route `address`/`prefixLength` originated by `asn`: valid when
 * a covering VRP matches, invalid when VRPs cover it but none matches, not-found when none covers it.
 * `address` may be any address of the route: the VRPs covering a route are those that hold any of its
 * addresses and are no longer than it.
 */
export function validateRoute(set: VrpSet, address: IpAddress, prefixLength: number, asn: number): RouteValidity {
  const groups: Record<Match, Vrp[]> = { matched: [], unmatchedAs: [], unmatchedLength: [] };
  const covering: Vrp[] = [];
  forEachCovering(set, address, prefixLength, (family, prefix) => {
    for (const vrp of vrpsOf(family, prefix)) {
      covering.push(vrp);
      groups[matchOf(vrp.asn, vrp.maxLength, asn, prefixLength)].push(vrp);
    }
  });
  const seen = {
    matched: groups.matched.length > 0,
    unmatchedAs: groups.unmatchedAs.length > 0,
    unmatchedLength: groups.unmatchedLength.length > 0,
  };
  return { ...stateOf(seen), ...groups, covering };
}
