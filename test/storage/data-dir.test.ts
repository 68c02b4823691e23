import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DirectoryError, prepareDirectory } from '../../src/storage/data-dir.ts';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';
import { serviceArguments } from '../support/start-command.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'netinfo-data-dir-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Starts the service (through `prefix`, e.g. unshare, when given) and resolves with its exit code
 * and stderr, or 'still running' after `ms` (it is killed then).
 */
function startService(
  env: Record<string, string>,
  options: { prefix?: string[]; uid?: number; gid?: number; ms?: number } = {},
): Promise<{ code: number | null | 'still running'; stderr: string }> {
  const command = [...(options.prefix ?? []), process.execPath, ...serviceArguments()];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...NO_DOWNLOADS_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DNS_SERVERS: '127.0.0.1:9',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: 'still running', stderr });
    }, options.ms ?? 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('prepareDirectory', () => {
  it('creates every missing level, and accepts a directory that exists', () => {
    const target = path.join(scratch, 'a', 'b', 'c');
    prepareDirectory(target, 'DATA_DIR');
    assert.ok(statSync(target).isDirectory());
    prepareDirectory(target, 'DATA_DIR');
  });

  it('refuses a file where a directory should be, naming the variable', () => {
    const file = path.join(scratch, 'plain-file');
    writeFileSync(file, '');
    assert.throws(
      () => prepareDirectory(file, 'DATA_DIR'),
      (error: Error) =>
        error instanceof DirectoryError && /^DATA_DIR \(.+\) cannot be used: .+ is not a directory/.test(error.message),
    );
    assert.throws(() => prepareDirectory(path.join(file, 'below'), 'DATA_DIR'), /is a file, not a directory/);
  });

  it("refuses a directory under /proc at once (Node's recursive mkdir loops there for ever)", {
    skip: process.platform !== 'linux',
  }, () => {
    assert.throws(
      () => prepareDirectory('/proc/self/nonexistent/data', 'DATA_DIR'),
      /^DirectoryError: DATA_DIR \(\/proc\/self\/nonexistent\/data\) cannot be used: \/proc\/self is on proc, a kernel pseudo-filesystem/,
    );
    assert.throws(() => prepareDirectory('/sys/netinfo-data', 'DATA_DIR'), /\/sys is on sysfs/);
  });

  it('judges the filesystem by its type (statfs), not by its path', () => {
    const target = path.join(scratch, 'pretend-proc', 'data');
    assert.throws(
      () => prepareDirectory(target, 'DATA_DIR', () => ({ type: 0x9fa0 })),
      /is on proc, a kernel pseudo-filesystem/,
    );
    assert.throws(() => statSync(target), /ENOENT/, 'nothing was created');
  });
});

describe('the service with an unusable DATA_DIR', { timeout: 60_000 }, () => {
  it('DATA_DIR=/proc/self/nonexistent/data: exits 1 with one line naming DATA_DIR, rather than hang', {
    skip: process.platform !== 'linux',
  }, async () => {
    const { code, stderr } = await startService({ DATA_DIR: '/proc/self/nonexistent/data' });
    assert.equal(code, 1, stderr);
    assert.equal(
      stderr.trim(),
      'netinfo could not start: DATA_DIR (/proc/self/nonexistent/data) cannot be used: /proc/self is on proc, a kernel pseudo-filesystem, not storage; choose a directory on a disk',
    );
  });

  // A read-only mount of our own, in a mount namespace of the test's own (unshare): it is gone
  // with the process and nothing else on the machine sees it. Needs CAP_SYS_ADMIN (root in CI).
  const unshareSkip =
    spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0
      ? false
      : 'cannot create a mount namespace here (unshare --mount needs root)';
  it('a parent on a read-only file system: says read-only, not ENOENT', { skip: unshareSkip }, async () => {
    const mountPoint = path.join(scratch, 'read-only');
    prepareDirectory(mountPoint, 'test');
    const { code, stderr } = await startService(
      { DATA_DIR: path.join(mountPoint, 'netinfo', 'data') },
      {
        prefix: [
          'unshare',
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          'mount -t tmpfs -o ro,size=64k netinfo-test "$0" && exec "$@"',
          mountPoint,
        ],
      },
    );
    assert.equal(code, 1, stderr);
    assert.equal(
      stderr.trim(),
      `netinfo could not start: DATA_DIR (${mountPoint}/netinfo/data) cannot be used: ${mountPoint} is on a read-only file system`,
    );
  });

  // Root ignores mode bits, so as root the service is started as `nobody` (uid 65534) under a
  // directory only root may write; run as another user, the test makes such a directory itself.
  const isRoot = process.getuid?.() === 0;
  it('a parent this user cannot write: says permission denied', { skip: process.platform === 'win32' }, async () => {
    const locked = path.join(scratch, 'locked');
    prepareDirectory(locked, 'test');
    chmodSync(locked, 0o555);
    chmodSync(scratch, 0o755); // mkdtemp made it 0700: nobody must reach `locked` to be refused by it
    try {
      const { code, stderr } = await startService(
        { DATA_DIR: path.join(locked, 'data') },
        isRoot ? { uid: 65534, gid: 65534 } : {},
      );
      assert.equal(code, 1, stderr);
      assert.equal(
        stderr.trim(),
        `netinfo could not start: DATA_DIR (${locked}/data) cannot be used: ${locked}: permission denied (this user cannot write there)`,
      );
    } finally {
      chmodSync(locked, 0o755);
    }
  });
});
