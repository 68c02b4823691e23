import type { SourceId } from './data-files.ts';

export const FEED_NAMES = ['tor', 'vpn', 'vpn-asn', 'datacenter', 'datacenter-asn', 'proxy'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

export type DatabasePart = 'location' | 'network' | 'anonymity' | 'connection-type';

/**
 * One loaded database or feed: the one list that the logs, /readyz and the metrics
 * (netinfo_data_age_seconds and netinfo_data_entries, labelled by `source`) all read.
 */
export type DataSource = DatabaseSource | FeedSource | RpkiSource;

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

export interface RpkiSource {
  readonly kind: 'rpki';
  readonly source: 'rpki';
  /** `operator`: RPKI_VRP_FILE, the operator's own validator. */
  readonly origin: 'downloaded' | 'operator';
  readonly description: string;
  /** When the validator generated the set, as its export says; else when it was installed. */
  readonly updatedAt: number;
  /** Whether updatedAt is the validator's own time. */
  readonly generated: boolean;
  readonly entries: number;
}

/** What is loaded, from where, one line each: the feeds are one line. */
export function describeSources(sources: readonly DataSource[]): { part: string; description: string }[] {
  const lines: { part: string; description: string }[] = [];
  for (const source of sources) {
    if (source.kind === 'database') lines.push({ part: source.source, description: source.description });
  }
  const feeds = FEED_NAMES.filter((name) => sources.some((source) => source.source === name));
  if (feeds.length > 0) lines.push({ part: 'feeds', description: `security feeds: ${feeds.join(', ')}` });
  for (const source of sources)
    if (source.kind === 'rpki') lines.push({ part: 'rpki', description: source.description });
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
  for (const source of sources) {
    if (source.kind === 'rpki') {
      ages.push(`rpki ${source.generated ? 'generated' : 'installed'} ${formatAge(now - source.updatedAt)} ago`);
    }
  }
  return ages.length === 0 ? 'none' : ages.join(', ');
}

/**
 * A VRP set older than this is stale: validators publish several a day and the refresh asks every
 * RPKI_REFRESH_MINUTES, so a day without a new one means the refresh is failing, and ROAs made or
 * withdrawn since are missing from every answer.
 */
const RPKI_STALE_MS = 24 * 3_600_000;

export function isStaleVrpSet(source: RpkiSource, now: number): boolean {
  return now - source.updatedAt > RPKI_STALE_MS;
}

/** What /readyz reports as degraded about the loaded data's age. */
export function staleSources(sources: readonly DataSource[], now: number): string[] {
  return sources.flatMap((source) =>
    source.kind === 'rpki' && isStaleVrpSet(source, now)
      ? [
          `the RPKI VRP set was ${source.generated ? 'generated' : 'installed'} ${formatAge(now - source.updatedAt)} ago, over a day: its refresh is failing, so origin validation may be out of date`,
        ]
      : [],
  );
}

function formatAge(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}
