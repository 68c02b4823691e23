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

/**
 * RFC 6811 §2 origin validation of the route `address`/`prefixLength` originated by `asn`: valid when
 * a covering VRP matches, invalid when VRPs cover it but none matches, not-found when none covers it.
 * `address` may be any address of the route: the VRPs covering a route are those that hold any of its
 * addresses and are no longer than it.
 */
export function validateRoute(set: VrpSet, address: IpAddress, prefixLength: number, asn: number): RouteValidity {
  const matched: Vrp[] = [];
  const unmatchedAs: Vrp[] = [];
  const unmatchedLength: Vrp[] = [];
  const covering: Vrp[] = [];
  forEachCovering(set, address, prefixLength, (family, prefix) => {
    for (const vrp of vrpsOf(family, prefix)) {
      covering.push(vrp);
      if (vrp.asn !== asn || asn === 0) unmatchedAs.push(vrp);
      else if (prefixLength > vrp.maxLength) unmatchedLength.push(vrp);
      else matched.push(vrp);
    }
  });
  if (matched.length > 0) return { state: 'valid', matched, unmatchedAs, unmatchedLength, covering };
  if (unmatchedAs.length === 0 && unmatchedLength.length === 0) {
    return { state: 'not-found', matched, unmatchedAs, unmatchedLength, covering };
  }
  const reason: InvalidReason = unmatchedLength.length > 0 ? 'length' : 'as';
  return { state: 'invalid', reason, matched, unmatchedAs, unmatchedLength, covering };
}
