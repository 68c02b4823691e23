import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CidrColumns } from './cidr-set.ts';
import { type Manifest, SOURCES, type SourceId, stampOf } from './data-files.ts';
import { FEED_NAMES, type FeedName, type FeedSource } from './data-sources.ts';
import { parseAsnList } from './feeds.ts';
import { buildSecurityFeeds, type SecurityFeedData, type SecurityFeeds } from './security-feeds.ts';

const FEED_OF: Partial<Record<SourceId, FeedName>> = {
  tor: 'tor',
  'vpn-ipv4': 'vpn',
  'vpn-ipv6': 'vpn',
  'vpn-asn': 'vpn-asn',
  'datacenter-ipv4': 'datacenter',
  'datacenter-ipv6': 'datacenter',
  'datacenter-asn': 'datacenter-asn',
  proxy: 'proxy',
};

/** The installed feed files, parsed; a reload whose files have the same stamps keeps it whole. */
export interface LoadedFeeds {
  readonly key: string;
  readonly feeds: SecurityFeeds;
  readonly names: ReadonlySet<FeedName>;
  readonly facts: ReadonlyMap<FeedName, { readonly updatedAt: number; readonly entries: number }>;
  /** The feed files present (read or not): those /readyz gives an age for. */
  readonly present: ReadonlySet<SourceId>;
}

export async function loadFeeds(
  downloads: string,
  off: readonly SourceId[],
  previous: LoadedFeeds | undefined,
  problems: string[],
): Promise<LoadedFeeds> {
  const files = SOURCES.filter((source) => FEED_OF[source.id] !== undefined && !off.includes(source.id));
  const stamps = await Promise.all(files.map((source) => stampOf(path.join(downloads, source.file))));
  const key = `feeds|${stamps.map((stamp) => stamp?.key ?? 'missing').join('|')}`;
  if (previous?.key === key) return previous;
  const cidrs: Record<'tor' | 'vpn' | 'datacenter' | 'proxy', CidrColumns> = {
    tor: new CidrColumns(),
    vpn: new CidrColumns(),
    datacenter: new CidrColumns(),
    proxy: new CidrColumns(),
  };
  const asns: Record<'vpn-asn' | 'datacenter-asn', number[][]> = { 'vpn-asn': [], 'datacenter-asn': [] };
  const names = new Set<FeedName>();
  const present = new Set(files.filter((_, index) => stamps[index] !== undefined).map((source) => source.id));
  const facts = new Map<FeedName, { updatedAt: number; entries: number }>();
  const note = (feed: FeedName, modifiedAt: number, entries: number) => {
    const known = facts.get(feed);
    facts.set(feed, {
      updatedAt: Math.min(known?.updatedAt ?? modifiedAt, modifiedAt),
      entries: (known?.entries ?? 0) + entries,
    });
  };
  await Promise.all(
    files.map(async (source, index) => {
      const stamp = stamps[index];
      const feed = FEED_OF[source.id];
      if (stamp === undefined || feed === undefined) return;
      const text = await readFile(path.join(downloads, source.file), 'utf8').catch((error: Error) => {
        problems.push(`${source.what}: ${error.message}`);
        return null;
      });
      if (text === null) return;
      names.add(feed);
      if (feed === 'vpn-asn' || feed === 'datacenter-asn') {
        const listed = parseAsnList(text).entries.map((entry) => entry.asn);
        asns[feed].push(listed);
        note(feed, stamp.modifiedAt, listed.length);
      } else {
        note(feed, stamp.modifiedAt, cidrs[feed].addText(text, source.kind === 'tor-list'));
      }
    }),
  );
  const data: SecurityFeedData = {
    torExits: cidrs.tor,
    vpnNetworks: cidrs.vpn,
    datacenterNetworks: cidrs.datacenter,
    proxyNetworks: cidrs.proxy,
    vpnAsns: asns['vpn-asn'].flat(),
    datacenterAsns: asns['datacenter-asn'].flat(),
  };
  return { key, feeds: buildSecurityFeeds(data), names, facts, present };
}

/** The loaded feeds as data sources, with when the manifest says each file was installed. */
export function feedSources(loaded: LoadedFeeds, manifest: Manifest): FeedSource[] {
  return FEED_NAMES.flatMap((feed) => {
    const facts = loaded.facts.get(feed);
    if (facts === undefined) return [];
    const installed = SOURCES.flatMap(({ id }) => {
      const at = manifest.sources[id]?.installedAt;
      return FEED_OF[id] === feed && at !== undefined && loaded.present.has(id) ? [{ id, at: Date.parse(at) }] : [];
    });
    return [{ kind: 'feed', source: feed, origin: 'downloaded', ...facts, installed }];
  });
}
