import { isIP } from 'node:net';
import { DnsError } from '../../src/dns/errors.ts';
import type { Resolver } from '../../src/dns/resolver.ts';

/**
 * A Resolver for stream tests: IP literals resolve to themselves (as in the real one), names from
 * `addresses`, and reverse() answers from `names` after the given delay (a name mapped to
 * 'never' does not settle in the test's lifetime, as a server that does not answer).
 */
export function createFakeResolver(options: {
  addresses?: Record<string, { address: string; family: 4 | 6 }[]>;
  names?: Record<string, string | { name: string | null; delayMs: number } | 'never'>;
}): Resolver & { reverseAsked: string[] } {
  const reverseAsked: string[] = [];
  return {
    reverseAsked,
    async query() {
      throw new DnsError('REFUSED', 'the fake resolver answers no queries');
    },
    async resolveAddresses(name, family = 'any') {
      const literal = isIP(name);
      if (literal === 4 || literal === 6)
        return family === 'any' || family === literal ? [{ address: name, family: literal }] : [];
      const known = options.addresses?.[name];
      if (!known) throw new DnsError('TIMEOUT', `no DNS server answered for ${name}`);
      return known.filter((entry) => family === 'any' || entry.family === family);
    },
    reverse(ip) {
      reverseAsked.push(ip);
      const entry = options.names?.[ip];
      if (entry === 'never') return new Promise(() => {});
      if (entry === undefined || typeof entry === 'string') return Promise.resolve(entry ?? null);
      return new Promise((resolve) => setTimeout(() => resolve(entry.name), entry.delayMs).unref());
    },
  };
}
