import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

export const MASTER_KEY_FILE = 'master.key';

/** Base64 (standard or URL-safe) of exactly 32 bytes; the message never repeats the value. */
export function parseMasterKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new Error(`${source} must be base64 of 32 bytes`);
  const key = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  if (key.length !== 32) throw new Error(`${source} must be base64 of 32 bytes, it decodes to ${key.length}`);
  return key;
}

export interface VersionedMasterKey {
  readonly version: number;
  readonly key: Buffer;
}

/**
 * `MASTER_KEY` as written: one base64 key (version 1), or a list `v3:<base64>,v2:<base64>` whose
 * first entry is the current key. Messages never repeat a key.
 */
export function parseMasterKeys(text: string, source: string): VersionedMasterKey[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error(`${source} is empty`);
  if (entries.length === 1 && !/^v\d+:/.test(entries[0] ?? '')) {
    return [{ version: 1, key: parseMasterKey(entries[0] ?? '', source) }];
  }
  const keys = entries.map((entry, index) => {
    const match = /^v(\d{1,6}):(.*)$/.exec(entry);
    if (!match) throw new Error(`${source}: entry ${index + 1} must be v<version>:<base64 of 32 bytes>`);
    return { version: Number(match[1]), key: parseMasterKey(match[2] ?? '', `${source} (v${match[1]})`) };
  });
  const versions = keys.map((entry) => entry.version);
  if (versions.some((version) => version < 1)) throw new Error(`${source}: versions start at 1`);
  if (new Set(versions).size !== versions.length) throw new Error(`${source}: a version is listed twice`);
  if (versions.some((version, index) => index > 0 && version >= (versions[0] ?? 0))) {
    throw new Error(`${source}: the first entry must be the newest version (the current key)`);
  }
  return keys;
}

export interface MasterKeyLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * The master key: MASTER_KEY when set, else `DATA_DIR/master.key`, generated at first start.
 * Creation is atomic and exclusive (written to a private temporary file, then hard-linked into
 * place), so processes starting together agree on one key and none reads a half-written file.
 */
export function loadMasterKey(options: {
  configured: VersionedMasterKey[] | null;
  dataDir: string;
  log: MasterKeyLog;
}): VersionedMasterKey[] {
  if (options.configured) return options.configured;
  const file = path.join(options.dataDir, MASTER_KEY_FILE);
  mkdirSync(options.dataDir, { recursive: true });
  if (!exists(file) && createKeyFile(file)) {
    options.log.info(
      { path: file },
      'generated a new master key (mode 0600); back it up with the database: without it no stored API key can be verified',
    );
  }
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    options.log.warn({ path: file, mode: mode.toString(8) }, 'the master key file is readable by others: chmod 600 it');
  }
  return parseMasterKeys(readFileSync(file, 'utf8'), file);
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** True when this process created the file; false when another won the race. */
function createKeyFile(file: string): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const descriptor = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(descriptor, `${randomBytes(32).toString('base64')}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, file);
    syncDirectory(path.dirname(file));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** The new directory entry must survive a power cut as well as the file's content. */
function syncDirectory(directory: string): void {
  const descriptor = openSync(directory, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
