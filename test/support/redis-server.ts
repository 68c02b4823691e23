import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { findCommand } from '../../scripts/system-packages.ts';
import { freePort } from './free-port.ts';

/**
 * A real redis-server on 127.0.0.1 for the scale-out tests: started by the test itself (so a test
 * can stop and restart it), no persistence. Tests skip, saying so, when the binary is absent.
 */
export function findRedisServer(): string | null {
  return findCommand('redis-server');
}

export const redisSkipReason = findRedisServer() ? false : 'redis-server not installed (apt package redis-server)';

export interface TestRedis {
  readonly url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing answers, as in a network partition. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
}

export interface RedisOptions {
  /** Keep every write in an append-only file in this directory (fsync always), so a restart keeps the data. */
  persistIn?: string;
  /** Also listen on this Unix socket: processes in other network namespaces share the file system. */
  unixSocket?: string;
}

export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  const binary = findRedisServer();
  if (!binary) throw new Error('redis-server not installed');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const persistence = options.persistIn
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.persistIn]
    : ['--appendonly', 'no'];
  const socket = options.unixSocket ? ['--unixsocket', options.unixSocket, '--unixsocketperm', '700'] : [];

  async function start(): Promise<void> {
    const process = spawn(
      binary as string,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, ...socket],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child = process;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      process.stdout?.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) resolve();
      });
      process.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  }

  async function stop(): Promise<void> {
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}

/**
 * A Redis server and a client of it for one `describe`, started before its tests and stopped after.
 * The client fails fast rather than queue while a test has the server stopped or frozen, and its
 * reconnect errors then are expected.
 */
export function redisForSuite(): { readonly redis: TestRedis; readonly client: Redis } {
  const suite = {} as { redis: TestRedis; client: Redis };
  before(async () => {
    suite.redis = await startRedis();
    suite.client = new Redis(suite.redis.url, { maxRetriesPerRequest: 1 });
    suite.client.on('error', () => {});
  });
  after(async () => {
    suite.redis?.thaw();
    suite.client?.disconnect();
    await suite.redis?.stop();
  });
  return suite;
}
