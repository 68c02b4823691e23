import { open } from 'node:fs/promises';
import { sharedWhileInFlight } from '../cache/in-flight.ts';
import { stampFrom } from '../ipinfo/data/data-files.ts';

/**
 * The supervisor's copies of the data files its worker threads read (the City database, 66 MB; the
 * ASN blob, 13 MB; the VRP set): each file read once into a SharedArrayBuffer, the same one handed to
 * every worker that asks while the file is unchanged. The supervisor keeps the latest copy of a path
 * while some worker's data uses it (a worker started later shares it then); a copy is freed with its
 * last holder, so a replaced file's bytes live exactly as long as some worker's data views them.
 */
export interface SharedFiles {
  read(file: string): Promise<SharedArrayBuffer>;
  /**
   * Lets go of the copies no worker's data uses (`inUse`: stamp keys), once out of hand for a while:
   * a worker still loading has not said yet what it holds.
   */
  retain(inUse: ReadonlySet<string>): void;
}

const UNCLAIMED_MS = 60_000;

export function createSharedFiles(now: () => number = Date.now): SharedFiles {
  const latest = new Map<string, { key: string; bytes: SharedArrayBuffer; handedAt: number }>();
  const reading = sharedWhileInFlight<string, SharedArrayBuffer>();
  const readOnce = async (file: string): Promise<SharedArrayBuffer> => {
    // The stamp of the open file, not of the path: a file renamed into place meanwhile is read next time.
    const handle = await open(file);
    try {
      const info = await handle.stat();
      const { key } = stampFrom(file, info);
      const known = latest.get(file);
      if (known?.key === key) {
        known.handedAt = now();
        return known.bytes;
      }
      const bytes = new SharedArrayBuffer(info.size);
      const view = Buffer.from(bytes);
      for (let at = 0; at < info.size; ) {
        const { bytesRead } = await handle.read(view, at, info.size - at, at);
        if (bytesRead === 0) throw new Error(`${file}: shorter than its ${info.size} bytes`);
        at += bytesRead;
      }
      latest.set(file, { key, bytes, handedAt: now() });
      return bytes;
    } catch (error) {
      latest.delete(file);
      throw error;
    } finally {
      await handle.close();
    }
  };
  return {
    read: (file) => reading(file, () => readOnce(file)),
    retain(inUse) {
      for (const [file, copy] of latest) {
        if (!inUse.has(copy.key) && now() - copy.handedAt > UNCLAIMED_MS) latest.delete(file);
      }
    },
  };
}
