import type { Resolver } from '../../dns/resolver.ts';

/**
 * The hostname of a hop: its PTR name when the project's resolver finds it within `waitMs`, else the
 * address itself (as traceroute prints a hop without a name). A slow lookup is not cancelled: it goes
 * on with the resolver's own bound and fills the DNS cache, so the next trace through that router
 * gets the name at once. With `waitMs` 0 only cached names come through (a cache hit settles before
 * a zero timer fires).
 */
export function createHostnameLookup(resolver: Pick<Resolver, 'reverse'>, waitMs: number) {
  return (ip: string): Promise<string> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(ip), waitMs);
      resolver.reverse(ip).then(
        (name) => {
          clearTimeout(timer);
          resolve(name ?? ip);
        },
        () => {
          clearTimeout(timer);
          resolve(ip);
        },
      );
    });
}
