import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** A name in the same directory (so rename is atomic), unique per process and call. */
export function temporaryPathFor(finalPath: string): string {
  const name = `.${path.basename(finalPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  return path.join(path.dirname(finalPath), name);
}

/**
 * Writes the file under a temporary name, flushes it to disk, and renames it over the old one:
 * a reader (or a crash) sees the complete old file or the complete new one, never a mixture.
 */
export async function writeFileAtomically(finalPath: string, data: string | Uint8Array): Promise<void> {
  const temporary = temporaryPathFor(finalPath);
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, finalPath);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Flushes a finished temporary file and renames it into place. */
export async function installFile(temporary: string, finalPath: string): Promise<void> {
  const handle = await open(temporary, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, finalPath);
}
