import path from 'node:path';
import { decodeVrps } from '../../rpki/vrp-file.ts';
import type { VrpSet } from '../../rpki/vrp-set.ts';
import { type Manifest, type ReadBytes, readWholeFile, SOURCES, stampOf } from './data-files.ts';
import type { RpkiSource } from './data-sources.ts';

/** The installed VRP set, viewed in place; a reload whose file has the same stamp keeps it whole. */
export interface LoadedVrps {
  readonly key: string;
  readonly set: VrpSet;
  readonly source: RpkiSource;
}

const FILE = SOURCES.find((source) => source.id === 'rpki')?.file as string;

/**
 * The VRP set the updater installed, or undefined when there is none (or `FEED_RPKI_URL=off` without
 * `RPKI_VRP_FILE`: a copy installed earlier is then not used). A file that cannot be read keeps the
 * set loaded before, and says so.
 */
export async function loadVrps(
  downloads: string,
  options: { off: boolean; operatorFile: boolean; readBytes?: ReadBytes },
  previous: LoadedVrps | undefined,
  manifest: Manifest,
  problems: string[],
): Promise<LoadedVrps | undefined> {
  if (options.off) return undefined;
  const file = path.join(downloads, FILE);
  const stamp = await stampOf(file);
  if (stamp === undefined) return undefined;
  if (previous?.key === stamp.key) return previous;
  try {
    const set = decodeVrps(await (options.readBytes ?? readWholeFile)(file));
    const installed = manifest.sources.rpki;
    const installedAt = installed ? Date.parse(installed.installedAt) : stamp.modifiedAt;
    const source: RpkiSource = {
      kind: 'rpki',
      source: 'rpki',
      origin: options.operatorFile ? 'operator' : 'downloaded',
      description: `${set.size} VRPs (${installed?.url ?? FILE})`,
      updatedAt: Number.isNaN(set.generatedAt) ? installedAt : set.generatedAt,
      generated: !Number.isNaN(set.generatedAt),
      entries: set.size,
    };
    return { key: stamp.key, set, source };
  } catch (error) {
    problems.push(`RPKI VRP set: ${(error as Error).message}${previous ? '; kept the set loaded before' : ''}`);
    return previous;
  }
}
