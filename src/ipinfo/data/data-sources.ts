import type { SourceId } from './data-files.ts';

export const FEED_NAMES = ['tor', 'vpn', 'vpn-asn', 'datacenter', 'datacenter-asn', 'proxy'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

export type DatabasePart = 'location' | 'network' | 'anonymity' | 'connection-type';

/**
 * One loaded database or feed: the one list that the logs, /readyz and the metrics
 * (netinfo_data_age_seconds and netinfo_data_entries, labelled by `source`) all read.
 */
export type DataSource = DatabaseSource | FeedSource;

export interface DatabaseSource {
  readonly kind: 'database';
  readonly source: DatabasePart;
  readonly origin: 'operator' | 'downloaded' | 'embedded';
  /** `<database type> (<file or package>)`. */
  readonly description: string;
  /** The database's build time, ms since the epoch. */
  readonly updatedAt: number;
  readonly entries: number;
}

export interface FeedSource {
  readonly kind: 'feed';
  readonly source: FeedName;
  readonly origin: 'downloaded';
  /** The oldest of its files' modification times (when the updater installed them), ms since the epoch. */
  readonly updatedAt: number;
  readonly entries: number;
  /** When the updater says it installed each of the feed's files, as its manifest records it. */
  readonly installed: readonly { readonly id: SourceId; readonly at: number }[];
}

/** What is loaded, from where, one line each: the feeds are one line. */
export function describeSources(sources: readonly DataSource[]): { part: string; description: string }[] {
  const lines: { part: string; description: string }[] = [];
  for (const source of sources) {
    if (source.kind === 'database') lines.push({ part: source.source, description: source.description });
  }
  const feeds = FEED_NAMES.filter((name) => sources.some((source) => source.source === name));
  if (feeds.length > 0) lines.push({ part: 'feeds', description: `security feeds: ${feeds.join(', ')}` });
  return lines;
}

const AGED_DATABASES = [
  ['city', 'location'],
  ['asn', 'network'],
] as const;

/** `city built 41 d ago (embedded), tor downloaded 2 h ago, ...`: each loaded source and its age. */
export function describeAges(sources: readonly DataSource[], now: number): string {
  const ages: string[] = [];
  for (const [name, part] of AGED_DATABASES) {
    const database = sources.find((source) => source.source === part);
    if (database?.kind === 'database') {
      ages.push(`${name} built ${formatAge(now - database.updatedAt)} ago (${database.origin})`);
    }
  }
  for (const feed of FEED_NAMES) {
    const source = sources.find((candidate) => candidate.source === feed);
    if (source?.kind !== 'feed') continue;
    for (const { id, at } of source.installed) ages.push(`${id} downloaded ${formatAge(now - at)} ago`);
  }
  return ages.length === 0 ? 'none' : ages.join(', ');
}

function formatAge(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}
