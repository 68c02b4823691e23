// `npm start`'s entry is plain JavaScript so that, once Node's compile cache holds every module's
// stripped text, Node's TypeScript stripper (about 18 MB resident: its WebAssembly) never loads.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { NO_DOWNLOADS_ENV } from '../support/no-downloads.ts';
import { serviceArguments } from '../support/start-command.ts';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
// Preloaded: says at exit whether the stripper was loaded (Node lists every internal module it loads).
// Written synchronously: console.log to a pipe may not be flushed when the process exits.
const REPORT = `data:text/javascript,import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(1, 'stripper loaded: ' + process.moduleLoadList.some((m) => m.includes('amaro')) + '\\n'))`;

async function startAndStop(cacheDir: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', REPORT, ...serviceArguments()], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...NO_DOWNLOADS_ENV,
      NODE_COMPILE_CACHE: cacheDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: '.tmp/test-data',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (/listening on/.test(output)) child.kill('SIGTERM');
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return output;
}

test('from the second start on, the service runs without loading the TypeScript stripper', async () => {
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'netinfo-compile-cache-'));
  try {
    assert.match(await startAndStop(cacheDir), /stripper loaded: true/, 'the first start strips the types');
    assert.match(await startAndStop(cacheDir), /stripper loaded: false/);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});
