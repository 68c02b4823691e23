import { Reader } from 'maxmind';
import { encodeVrps } from '../../rpki/vrp-file.ts';
import { parseVrpJson } from '../../rpki/vrp-json.ts';
import type { InstalledSource } from '../data/data-files.ts';
import { type FeedParse, parseAsnList, parseCidrList, parseTorExitList } from '../data/feeds.ts';
import { createLocationReader, createNetworkReader } from '../data/geo.ts';
import { UpdateError } from './download.ts';

/** What verification learnt, for the manifest. */
export interface Verified {
  /** Search-tree nodes (databases) or entries (feeds): compared with the next download's. */
  size: number;
  builtAt?: string;
}

/**
 * A new copy may not be less than this share of the installed one. Publishers' lists and
 * databases grow and shrink by a few percent between releases; losing half of one is a broken
 * build or a truncated download that happened to end on a line boundary.
 */
const MIN_SHARE_OF_PREVIOUS = 0.5;

/**
 * The most entries a feed may have. The largest real one (X4BNet's datacenter IPv4 list) has about
 * 43,000; the service parses a feed on its own thread when it loads it, and a list of millions of
 * /32s (a broken build) stalled every request for seconds and took over a gigabyte.
 */
export const MAX_FEED_ENTRIES = 250_000;

/**
 * A downloaded MaxMind-format database is installed only if it opens as the kind expected (its
 * metadata names a City/Country or ASN/ISP database), survives lookups spread over the whole
 * address space (a damaged search tree or data section throws), was not built in the future,
 * and is not much smaller than the copy it replaces.
 */
export function verifyDatabase(
  kind: 'city-mmdb' | 'asn-mmdb',
  db: Buffer,
  now: Date,
  previous?: InstalledSource,
): Verified {
  let reader: Reader<Record<string, unknown>>;
  try {
    if (kind === 'city-mmdb') createLocationReader(db);
    else createNetworkReader(db);
    reader = new Reader(db);
  } catch (error) {
    throw new UpdateError(
      `not a usable ${kind === 'city-mmdb' ? 'City' : 'ASN'} database: ${(error as Error).message}`,
    );
  }
  const { nodeCount, buildEpoch, ipVersion } = reader.metadata;
  try {
    for (let i = 0; i < 1024; i++) {
      const v4 = Math.floor((i / 1024) * 2 ** 32) + 0x5a5a5;
      reader.get(`${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`);
      if (ipVersion === 6) reader.get(`${(0x2000 + i * 8).toString(16)}:${((i * 2654435761) >>> 16).toString(16)}::1`);
    }
  } catch (error) {
    throw new UpdateError(`the database is damaged: a lookup failed (${(error as Error).message})`);
  }
  if (buildEpoch.getTime() > now.getTime() + 86_400_000) {
    throw new UpdateError(`the database claims to be built in the future (${buildEpoch.toISOString()})`);
  }
  refuseShrinking(nodeCount, previous, 'search-tree nodes');
  return { size: nodeCount, builtAt: buildEpoch.toISOString() };
}

/**
 * A feed is installed only if it is text in the expected format (an HTML error page or a binary
 * is refused) whose last line is complete, has at least one entry and at most MAX_FEED_ENTRIES,
 * has at most 1% malformed lines, and is not much smaller than the copy it replaces.
 */
export function verifyFeed(
  kind: 'tor-list' | 'cidr-list' | 'asn-list',
  text: string,
  previous?: InstalledSource,
): Verified {
  if (text.includes('\0')) throw new UpdateError('binary data, not a text list');
  if (/^\s*</.test(text)) throw new UpdateError('an HTML or XML page, not a list');
  const parse: FeedParse<unknown> =
    kind === 'tor-list' ? parseTorExitList(text) : kind === 'cidr-list' ? parseCidrList(text) : parseAsnList(text);
  const { entries, malformed } = parse;
  if (entries.length === 0)
    throw new UpdateError(`no entries${malformed.length ? ` (${malformed.length} malformed lines)` : ''}`);
  // Every published list ends each line. A download cut mid-line can leave a valid but different
  // entry (51.89.153.112 cut to 51.89.153.11, AS16509 to AS165), which no format check can see.
  if (!text.endsWith('\n')) {
    const last = text.slice(text.lastIndexOf('\n') + 1);
    throw new UpdateError(`the last line ("${last.slice(0, 60)}") has no line end: a download cut short`);
  }
  if (entries.length > MAX_FEED_ENTRIES) {
    throw new UpdateError(
      `${entries.length} entries, more than the ${MAX_FEED_ENTRIES} a feed may have (the largest real list has about 43,000)`,
    );
  }
  if (malformed.length > Math.max(1, entries.length / 100)) {
    const first = malformed[0];
    throw new UpdateError(
      `${malformed.length} malformed lines of ${entries.length + malformed.length}, e.g. line ${first?.line} "${first?.text.slice(0, 60)}": ${first?.reason}`,
    );
  }
  refuseShrinking(entries.length, previous, 'entries');
  return { size: entries.length };
}

/** The real set has about 800,000 VRPs (+23% a year); ten times that is a broken export. */
const MAX_VRPS = 8_000_000;

/**
 * A VRP export is installed only if it is complete JSON in the shared form (an HTML page or a cut
 * download fails to parse), has at least one VRP and at most MAX_VRPS, at most 1% entries that are
 * not VRPs, was not generated in the future, and is not much smaller than the set it replaces.
 * What is installed is the compiled set (src/rpki/vrp-file.ts), never the JSON.
 */
export function verifyVrps(text: string, now: Date, previous?: InstalledSource): Verified & { compiled: Buffer } {
  let parsed: ReturnType<typeof parseVrpJson>;
  try {
    parsed = parseVrpJson(text);
  } catch (error) {
    throw new UpdateError((error as Error).message);
  }
  const { entries, malformed, generatedAt } = parsed;
  if (entries.length === 0)
    throw new UpdateError(`no VRPs${malformed.length ? ` (${malformed.length} malformed)` : ''}`);
  if (entries.length > MAX_VRPS)
    throw new UpdateError(`${entries.length} VRPs, more than the ${MAX_VRPS} a set may have`);
  if (malformed.length > Math.max(1, entries.length / 100)) {
    const first = malformed[0];
    throw new UpdateError(
      `${malformed.length} of ${entries.length + malformed.length} entries are not VRPs, e.g. entry ${first?.index}: ${first?.reason}`,
    );
  }
  if (generatedAt > now.getTime() + 86_400_000) {
    throw new UpdateError(`the set claims to be generated in the future (${new Date(generatedAt).toISOString()})`);
  }
  refuseShrinking(entries.length, previous, 'VRPs');
  return {
    size: entries.length,
    ...(Number.isNaN(generatedAt) ? {} : { builtAt: new Date(generatedAt).toISOString() }),
    compiled: encodeVrps(entries, generatedAt),
  };
}

function refuseShrinking(size: number, previous: InstalledSource | undefined, unit: string): void {
  if (previous !== undefined && size < previous.size * MIN_SHARE_OF_PREVIOUS) {
    throw new UpdateError(`${size} ${unit}, less than half of the installed copy's ${previous.size}`);
  }
}
