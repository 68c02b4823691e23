import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { startListeningProcess } from './listening-process.ts';
import { NO_DOWNLOADS_ENV } from './no-downloads.ts';
import { serviceArguments } from './start-command.ts';

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Runs the service as `npm start` does, as its own process on a free port, as an operator would,
 * and resolves once it announces that it listens: with WORKERS > 1, the supervisor's line saying
 * that all of them do.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const workers = Number(env.WORKERS ?? 1);
  const ready =
    workers > 1
      ? new RegExp(`listening on (http://[^\\s/]+)\\S* with ${workers} workers`)
      : /listening on (http:\/\/[^\s/]+)/;
  const { url, child, output } = await startListeningProcess(
    process.execPath,
    serviceArguments(),
    {
      ...NO_DOWNLOADS_ENV,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: '.tmp/test-data',
      DNS_SERVERS: '127.0.0.1:9',
      METRICS_PORT: '0',
      ...env,
    },
    'pipe',
    ready,
  );
  return {
    url,
    child,
    output,
    async stop() {
      // A child killed by a signal has exitCode null but has exited all the same.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
  };
}
