import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { installFile, writeFileAtomically } from '../data/atomic-file.ts';
import {
  type InstalledSource,
  ipDataPaths,
  type Manifest,
  readManifest,
  SOURCES,
  type SourceId,
  type SourceSpec,
} from '../data/data-files.ts';
import { downloadToFile, type Fetch, hideLicenseKey, redactUrl, UpdateError } from './download.ts';
import { candidateUrls, checksumUrlFor } from './source-urls.ts';
import { unpackDownload } from './unpack.ts';
import type { UpdatePlan } from './update-plan.ts';
import { type Verified, verifyDatabase, verifyFeed, verifyVrps } from './verify.ts';

export interface UpdateDeps {
  fetch?: Fetch;
  now?: () => Date;
  log?: (line: string) => void;
}

export type SourceOutcome = 'updated' | 'unchanged' | 'failed' | 'skipped';

export interface SourceReport {
  id: SourceId;
  outcome: SourceOutcome;
  detail: string;
  /** How long the source's download, check and install took (not set when skipped). */
  seconds?: number;
}

const LIMITS = {
  database: { timeoutMs: 10 * 60_000, maxBytes: 1024 ** 3 },
  feed: { timeoutMs: 60_000, maxBytes: 64 * 1024 ** 2 },
  // rpki-client's export of 800,000 VRPs is about 70 MB.
  vrps: { timeoutMs: 5 * 60_000, maxBytes: 512 * 1024 ** 2 },
};

/**
 * Downloads every source, verifies each, and installs those that pass by renaming them over the
 * old file; then writes the manifest, which is what the running service watches. A source that
 * fails keeps its installed copy, and the manifest records why. Only one update runs at a time
 * per DATA_DIR (a lock file).
 */
export async function runDataUpdate(plan: UpdatePlan, deps: UpdateDeps = {}): Promise<SourceReport[]> {
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? (() => {});
  const paths = ipDataPaths(plan.dataDir);
  await mkdir(paths.downloads, { recursive: true });
  const release = await takeLock(paths.lock, now());
  const reports: SourceReport[] = [];
  try {
    const manifest = await readManifest(paths.manifest);
    for (const source of SOURCES) {
      const started = performance.now();
      const report = await updateSource(source, plan, manifest, { ...deps, now, log });
      if (report.outcome !== 'skipped') report.seconds = (performance.now() - started) / 1000;
      reports.push(report);
      log(`${source.id.padEnd(16)} ${report.outcome.padEnd(9)} ${report.detail}`);
    }
    manifest.updatedAt = now().toISOString();
    if (reports.some((report) => report.outcome === 'updated') || manifest.generation === '') {
      manifest.generation = `${manifest.updatedAt}-${randomBytes(3).toString('hex')}`;
    }
    await writeFileAtomically(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await removeLeftovers(paths.downloads);
    await release();
  }
  return reports;
}

async function updateSource(
  source: SourceSpec,
  plan: UpdatePlan,
  manifest: Manifest,
  deps: UpdateDeps & { now: () => Date; log: (line: string) => void },
): Promise<SourceReport> {
  const { id } = source;
  const skip = plan.skip[id];
  if (skip !== undefined) return { id, outcome: 'skipped', detail: skip };
  // A plan built before a source existed (a test's, a stored one) has no entry for it: not fetched.
  const template = plan.urls[id] ?? null;
  if (template === null) return { id, outcome: 'skipped', detail: 'turned off' };
  const installed = manifest.sources[id];
  const work = path.join(
    path.dirname(ipDataPaths(plan.dataDir).manifest),
    `.incoming-${id}-${randomBytes(4).toString('hex')}`,
  );
  try {
    const outcome = await fetchVerifyInstall(source, template, plan, installed, work, deps);
    if (outcome.outcome !== 'failed') delete manifest.failures[id];
    if (outcome.installed) manifest.sources[id] = outcome.installed;
    return { id, outcome: outcome.outcome, detail: outcome.detail };
  } catch (error) {
    const message = error instanceof UpdateError ? error.message : `unexpected error: ${(error as Error).message}`;
    // Everything written to the manifest and the log goes through this, whatever URL a message quotes.
    const reason = hideLicenseKey(message, plan.licenseKey);
    manifest.failures[id] = { at: deps.now().toISOString(), reason };
    const kept = installed ? `kept the copy installed ${installed.installedAt}` : 'nothing installed';
    return { id, outcome: 'failed', detail: `${reason}; ${kept}` };
  }
}

async function fetchVerifyInstall(
  source: SourceSpec,
  template: string,
  plan: UpdatePlan,
  installed: InstalledSource | undefined,
  work: string,
  deps: UpdateDeps & { now: () => Date },
): Promise<{ outcome: SourceOutcome; detail: string; installed?: InstalledSource }> {
  const database = source.kind === 'city-mmdb' || source.kind === 'asn-mmdb';
  const limits = database ? LIMITS.database : source.kind === 'vrp-json' ? LIMITS.vrps : LIMITS.feed;
  const tried: string[] = [];
  for (const url of candidateUrls(template, deps.now(), plan.licenseKey)) {
    const shown = hideLicenseKey(url, plan.licenseKey);
    const sameUrl = installed?.url === shown;
    const result = await downloadToFile(url, work, {
      ...limits,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(sameUrl && installed?.etag ? { etag: installed.etag } : {}),
      ...(sameUrl && installed?.lastModified ? { lastModified: installed.lastModified } : {}),
    });
    if (result.status === 'not-found') {
      tried.push(shown);
      continue;
    }
    if (result.status === 'not-modified')
      return { outcome: 'unchanged', detail: `not modified since ${installed?.installedAt}` };
    const checksumUrl = checksumUrlFor(url);
    if (checksumUrl !== null) await verifyChecksum(work, checksumUrl, deps.fetch);
    const bare = await unpackDownload(work, work, source.kind === 'vrp-json' ? '.json' : '.mmdb', limits.maxBytes);
    // Before reading a database whole (up to 1 GiB): a MaxMind-format file ends with its metadata.
    if (database && !(await hasMaxMindMetadata(bare))) {
      throw new UpdateError('not a MaxMind-format database: no metadata section at its end');
    }
    const content = await readFile(bare);
    const verified: Verified & { compiled?: Buffer } = database
      ? verifyDatabase(source.kind as 'city-mmdb' | 'asn-mmdb', content, deps.now(), installed)
      : source.kind === 'vrp-json'
        ? verifyVrps(content.toString('utf8'), deps.now(), installed)
        : verifyFeed(source.kind as 'tor-list' | 'cidr-list' | 'asn-list', content.toString('utf8'), installed);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const record: InstalledSource = {
      file: source.file,
      sha256,
      bytes: content.length,
      url: shown,
      installedAt: deps.now().toISOString(),
      size: verified.size,
      ...(verified.builtAt ? { builtAt: verified.builtAt } : {}),
      ...(result.etag ? { etag: result.etag } : {}),
      ...(result.lastModified ? { lastModified: result.lastModified } : {}),
    };
    if (installed?.sha256 === sha256) {
      return {
        outcome: 'unchanged',
        detail: `same content as installed ${installed.installedAt}`,
        installed: { ...record, installedAt: installed.installedAt },
      };
    }
    let ready = bare;
    if (verified.compiled !== undefined) {
      ready = `${work}.compiled`;
      await writeFile(ready, verified.compiled);
    }
    await installFile(ready, path.join(path.dirname(work), source.file));
    const what = database
      ? `${verified.size} nodes, built ${verified.builtAt}`
      : `${verified.size} entries${verified.builtAt ? `, generated ${verified.builtAt}` : ''}`;
    return { outcome: 'updated', detail: `${shown}: ${what}`, installed: record };
  }
  throw new UpdateError(`not published: HTTP 404 at ${tried.join(' and ')}`);
}

/** The metadata marker of the MaxMind DB format, which its spec puts in the file's last 128 KiB. */
const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

async function hasMaxMindMetadata(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 128 * 1024);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    return tail.includes(METADATA_MARKER);
  } finally {
    await handle.close();
  }
}

/** MaxMind publishes `<sha256>  <file name>` beside each archive. */
async function verifyChecksum(file: string, checksumUrl: string, fetchImpl?: Fetch): Promise<void> {
  const shown = redactUrl(checksumUrl);
  let expected: string | undefined;
  try {
    const response = await (fetchImpl ?? fetch)(checksumUrl, { signal: AbortSignal.timeout(60_000) });
    if (!response.ok) throw new UpdateError(`${shown}: HTTP ${response.status}`);
    expected = /^[0-9a-f]{64}\b/i.exec((await response.text()).trim())?.[0]?.toLowerCase();
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    throw new UpdateError(`${shown}: ${(error as Error).message}`);
  }
  if (expected === undefined) throw new UpdateError(`${shown}: no SHA-256 in the checksum file`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const actual = hash.digest('hex');
  if (actual !== expected)
    throw new UpdateError(`checksum mismatch: the download hashes to ${actual}, ${shown} says ${expected}`);
}

/**
 * An exclusive lock file holding the owner's pid; a lock whose owner is gone is taken over. The
 * lock appears with its content in one step (written beside it, then hard-linked into place, which
 * fails if it exists): created empty and written after, another run could read it empty in between,
 * take it for a dead owner's and run alongside.
 */
async function takeLock(lockPath: string, now: Date): Promise<() => Promise<void>> {
  const draft = `${lockPath}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(draft, JSON.stringify({ pid: process.pid, startedAt: now.toISOString() }));
  try {
    return await linkLock(draft, lockPath, now);
  } finally {
    await rm(draft, { force: true });
  }
}

/**
 * A run's time limits add up to under an hour (two databases, each up to two candidate URLs of
 * ten minutes, and seven feeds of one): a lock older than this belongs to no live run, whatever
 * process now has its pid (pids are reused, in containers soon after a restart).
 */
const MAX_LOCK_AGE_MS = 2 * 3_600_000;

async function linkLock(draft: string, lockPath: string, now: Date): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await link(draft, lockPath);
      return () => unlink(lockPath).catch(() => {});
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = await readFile(lockPath, 'utf8').then(
        (text) => JSON.parse(text) as { pid: number; startedAt: string },
        () => null,
      );
      const fresh = owner !== null && now.getTime() - Date.parse(owner.startedAt) < MAX_LOCK_AGE_MS;
      if (owner !== null && fresh && isAlive(owner.pid)) {
        throw new UpdateError(`another update is running (pid ${owner.pid}, since ${owner.startedAt})`);
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new UpdateError(`cannot take the lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeLeftovers(directory: string): Promise<void> {
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    if (name.startsWith('.incoming-')) await rm(path.join(directory, name), { force: true });
  }
}
