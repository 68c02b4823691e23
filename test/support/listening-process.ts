import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ListeningProcess {
  /** The origin the process printed (`http://host:port`, localhost as 127.0.0.1). */
  readonly url: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far (stdout, and stderr unless inherited). */
  output(): string;
}

/** The first URL printed: the service, the bench servers and the stream server all print one. */
const FIRST_URL = /(http:\/\/[^\s/]+)/;

/**
 * Starts `command args` in the repository and resolves once its stdout matches `ready` (by default
 * the first URL printed), whose first group is the URL it listens on; rejects with its output if it
 * exits first.
 */
export function startListeningProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  stderr: 'pipe' | 'inherit' = 'pipe',
  ready: RegExp = FIRST_URL,
): Promise<ListeningProcess> {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', stderr],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const url = ready.exec(output)?.[1];
      if (url && child.pid !== undefined) {
        resolve({ url: url.replace('localhost', '127.0.0.1'), child, pid: child.pid, output: () => output });
      }
    });
    child.once('exit', (code) => reject(new Error(`${[command, ...args].join(' ')} exited with ${code}:\n${output}`)));
  });
}
