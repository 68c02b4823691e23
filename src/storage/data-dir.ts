import { accessSync, constants, mkdirSync, type StatsFs, statfsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Linux filesystems that are views of the kernel, not storage (`f_type` of statfs(2), from
 * linux/magic.h). Node's recursive mkdir never returns under /proc (`DATA_DIR=/proc/x/data` spun
 * at 80% CPU with nothing printed), and the others accept no files of ours either.
 */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x65735543, 'fusectl'],
  [0xf97cff8c, 'selinuxfs'],
  [0x6e736673, 'nsfs'],
  [0x42494e4d, 'binfmt_misc'],
]);

/** Injectable so tests can stand a pseudo-filesystem in for a real one. */
export type StatFs = (directory: string) => Pick<StatsFs, 'type'>;

export class DirectoryError extends Error {
  override name = 'DirectoryError';
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function refusal(directory: string, error: unknown): DirectoryError {
  const code = errorCode(error);
  if (code === 'EROFS') return new DirectoryError(`${directory} is on a read-only file system`);
  if (code === 'EACCES' || code === 'EPERM') {
    return new DirectoryError(`${directory}: permission denied (this user cannot write there)`);
  }
  if (code === 'ENOTDIR') return new DirectoryError(`a part of ${directory} is a file, not a directory`);
  return new DirectoryError(`${directory}: ${(error as Error).message}`);
}

/**
 * Creates the missing levels one at a time, each one system call on a path one level shorter, so
 * nothing here can loop whatever the filesystem. The first existing level is checked for being
 * writable before (so a read-only mount says read-only, not ENOENT); a directory that exists already
 * need not be writable: a deployment may keep everything there read-only (PostgreSQL, MASTER_KEY,
 * IP data prepared).
 */
export function prepareDirectory(directory: string, label: string, statfs: StatFs = statfsSync): void {
  try {
    createLevels(directory, statfs);
  } catch (error) {
    if (!(error instanceof DirectoryError)) throw error;
    throw new DirectoryError(`${label} (${directory}) cannot be used: ${error.message}`);
  }
}

function createLevels(directory: string, statfs: StatFs): void {
  const missing: string[] = [];
  let existing = path.resolve(directory);
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) throw new DirectoryError(`${existing} exists and is not a directory`);
      break;
    } catch (error) {
      if (error instanceof DirectoryError) throw error;
      if (errorCode(error) !== 'ENOENT') throw refusal(existing, error);
      const parent = path.dirname(existing);
      if (parent === existing) throw refusal(existing, error);
      missing.unshift(existing);
      existing = parent;
    }
  }
  if (process.platform === 'linux') {
    const kind = PSEUDO_FILESYSTEMS.get(Number(statfs(existing).type));
    if (kind) {
      throw new DirectoryError(
        `${existing} is on ${kind}, a kernel pseudo-filesystem, not storage; choose a directory on a disk`,
      );
    }
  }
  if (missing.length === 0) return;
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw refusal(existing, error);
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Another process (a second worker) may have made it meanwhile; anything else in its place is not ours.
      if (errorCode(error) !== 'EEXIST') throw refusal(level, error);
      if (!statSync(level, { throwIfNoEntry: false })?.isDirectory()) {
        throw new DirectoryError(`${level} exists and is not a directory`);
      }
    }
  }
}
