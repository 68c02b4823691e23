import { classifySpecialAddress } from '../../src/net/special-addresses.ts';

/**
 * The project's address list: distinct public IPv4 addresses spread over the whole space, from a
 * fixed seed (the same every run). The benchmarks ask about them, and the ifconfig.co fixtures
 * (test/fixtures/echoip) were recorded for them.
 */
export function publicAddresses(count: number): string[] {
  const next = xorshift(0x9e3779b9);
  const found = new Set<string>();
  while (found.size < count) {
    const value = next();
    const ip = `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
    if (classifySpecialAddress(ip) === null) found.add(ip);
  }
  return [...found];
}

/** A 32-bit xorshift generator: the same numbers from the same seed, on every machine. */
export function xorshift(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}
