import { classifySpecialAddress } from '../src/net/special-addresses.ts';

/**
 * Public IPv4 addresses none of which repeats within 2^32 draws: the n-th is n times an odd
 * constant modulo 2^32 (a bijection), so neighbours in the sequence land far apart in the space and
 * hit different City records, as a client's list of addresses does. Special-purpose addresses are
 * skipped. `start` lets two generators (two benchmark connections) draw from disjoint stretches.
 */
export function freshAddresses(start = 0): () => string {
  let n = start;
  return () => {
    for (;;) {
      const value = Math.imul(n++, 0x9e3779b1) >>> 0;
      const ip = `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
      if (classifySpecialAddress(ip) === null) return ip;
    }
  };
}
