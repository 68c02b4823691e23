import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** Runs `node src/server.ts` as its own process on a free port, as an operator would. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['src/server.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: '.tmp/test-data',
      DNS_SERVERS: '127.0.0.1:9',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+?)\/api\/v1/.exec(output);
      if (match?.[1]) resolve(match[1].replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
