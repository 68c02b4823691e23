import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { UpdateError } from './download.ts';

/**
 * Turns a download into the bare file: a gzip stream is decompressed (its CRC proves the bytes
 * arrived intact), a tar archive (MaxMind ships `GeoLite2-City_YYYYMMDD/GeoLite2-City.mmdb` in a
 * .tar.gz) gives up its member whose name ends in `memberSuffix`. Formats are told by their bytes,
 * not by the URL, so any mirror works. Returns the path of the bare file (maybe `input` itself).
 */
export async function unpackDownload(
  input: string,
  work: string,
  memberSuffix: string,
  maxBytes: number,
): Promise<string> {
  let current = input;
  if (await startsWith(current, GZIP_MAGIC)) {
    const decompressed = `${work}.gunzip`;
    await gunzipFile(current, decompressed, maxBytes);
    current = decompressed;
  }
  if (await isTar(current)) {
    const extracted = `${work}.member`;
    await extractTarMember(current, memberSuffix, extracted);
    current = extracted;
  }
  return current;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

async function readAt(file: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function startsWith(file: string, magic: Buffer): Promise<boolean> {
  return (await readAt(file, 0, magic.length)).equals(magic);
}

/** POSIX ustar and GNU tar both put "ustar" at offset 257 of each 512-byte header. */
async function isTar(file: string): Promise<boolean> {
  return (await readAt(file, 257, 5)).toString('latin1') === 'ustar';
}

async function gunzipFile(source: string, destination: string, maxBytes: number): Promise<void> {
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) callback(new UpdateError(`decompresses to over ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(source), createGunzip(), limit, createWriteStream(destination));
  } catch (error) {
    await rm(destination, { force: true });
    if (error instanceof UpdateError) throw error;
    throw new UpdateError(`not a valid gzip file (${(error as Error).message})`);
  }
}

/** Walks the 512-byte headers; copies the first regular file whose name ends in `suffix`. */
async function extractTarMember(archive: string, suffix: string, destination: string): Promise<void> {
  const handle = await open(archive, 'r');
  let found: { start: number; size: number } | undefined;
  try {
    const { size: archiveSize } = await handle.stat();
    const header = Buffer.alloc(512);
    let position = 0;
    while (position + 512 <= archiveSize) {
      await handle.read(header, 0, 512, position);
      if (header.every((byte) => byte === 0)) break;
      const name = tarText(header, 345, 155)
        ? `${tarText(header, 345, 155)}/${tarText(header, 0, 100)}`
        : tarText(header, 0, 100);
      const size = Number.parseInt(tarText(header, 124, 12).trim() || '0', 8);
      const type = String.fromCharCode(header[156] ?? 0);
      if (!Number.isFinite(size) || size < 0) throw new UpdateError('damaged tar archive');
      if ((type === '0' || type === '\0') && name.endsWith(suffix)) {
        if (position + 512 + size > archiveSize) throw new UpdateError(`the archive is cut short inside ${name}`);
        found = { start: position + 512, size };
        break;
      }
      position += 512 + Math.ceil(size / 512) * 512;
    }
  } finally {
    await handle.close();
  }
  if (found === undefined) throw new UpdateError(`the archive holds no *${suffix} file`);
  if (found.size === 0) throw new UpdateError(`the archive's *${suffix} file is empty`);
  await pipeline(
    createReadStream(archive, { start: found.start, end: found.start + found.size - 1 }),
    createWriteStream(destination),
  );
}

function tarText(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}
