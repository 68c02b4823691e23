import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { HelperReply, HelperRequest } from './spawn-helper-protocol.ts';
import type { SpawnedTool, Spawner } from './spawner.ts';

const HELPER_SCRIPT = new URL('./spawn-helper-main.ts', import.meta.url);

/**
 * A Spawner that has a small helper process start the tools. Node spawns by forking the whole
 * process, synchronously: for this server (150-300 MB) that blocks every stream for 5-10 ms per
 * spawn, which under a burst of new streams held lines back for tens of milliseconds (measured,
 * bench/streams.ts). The helper stays small, so its forks are cheap, and they block only it.
 *
 * The children it returns behave as Node's do where runTool relies on it: 'error' before a pid
 * when the tool cannot start, stdout and stderr streams, 'exit' then 'close' once the output is all
 * delivered, kill(). The helper is started on the first spawn (not with the server: most test apps
 * never spawn), restarted if it dies, and kills every tool when the server closes it or exits (the
 * IPC channel closes); if the helper dies first, the server kills the tools it knew of.
 */
export function createHelperSpawner(): { spawner: Spawner; close(): Promise<void> } {
  let helper: ChildProcess | null = null;
  const children = new Map<number, RelayedChild>();
  let nextId = 1;

  function running(): ChildProcess {
    if (helper?.connected) return helper;
    const started = fork(HELPER_SCRIPT, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      execArgv: [],
      // The helper is not a test file even when the server runs under `node --test`.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    });
    started.on('message', (message: HelperReply) => children.get(message.id)?.receive(message));
    started.once('exit', () => {
      if (helper === started) helper = null;
      for (const child of children.values()) child.helperDied();
    });
    helper = started;
    idle(started);
    return started;
  }

  // The helper and its channel keep the event loop alive only while tools run.
  function idle(started: ChildProcess): void {
    if (children.size === 0) {
      started.unref();
      started.channel?.unref();
    } else {
      started.ref();
      started.channel?.ref();
    }
  }

  const send = (message: HelperRequest) => {
    const current = running();
    current.send(message);
    idle(current);
  };

  const spawner: Spawner = (command, args) => {
    const id = nextId++;
    const child = new RelayedChild((signal) => send({ type: 'kill', id, signal }));
    children.set(id, child);
    child.once('close', () => {
      children.delete(id);
      if (helper) idle(helper);
    });
    child.once('error', () => {
      if (child.pid === undefined) children.delete(id);
    });
    send({ type: 'spawn', id, command, args: [...args] });
    return child as unknown as SpawnedTool;
  };

  async function close(): Promise<void> {
    const current = helper;
    if (!current) return;
    helper = null;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    // An idle helper is unreferenced: without this the event loop could empty before its exit is
    // seen, and a close awaited at the end of a script would never settle.
    current.ref();
    current.disconnect();
    await exited;
  }

  return { spawner, close };
}

/** The server's side of one tool run by the helper. */
class RelayedChild extends EventEmitter {
  pid: number | undefined = undefined;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  private ended = false;
  private readonly requestKill: (signal: NodeJS.Signals) => void;

  constructor(requestKill: (signal: NodeJS.Signals) => void) {
    super();
    this.requestKill = requestKill;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    this.requestKill(signal);
    return true;
  }

  receive(message: HelperReply): void {
    if (message.type === 'spawn') {
      this.pid = message.pid;
      this.emit('spawn');
    } else if (message.type === 'data') {
      (message.fd === 1 ? this.stdout : this.stderr).write(Buffer.from(message.data));
    } else if (message.type === 'error') {
      this.ended = true;
      const error: NodeJS.ErrnoException = new Error(message.message);
      if (message.code !== undefined) error.code = message.code;
      this.emit('error', error);
    } else {
      this.end(message.code, message.signal);
    }
  }

  /**
   * The helper exited (killed, crashed) with this tool still running: the tool now belongs to init,
   * so kill it here by its pid (it was running a moment ago, so the pid is still its own) and
   * report the run ended, as killed.
   */
  helperDied(): void {
    if (this.ended) return;
    if (this.pid === undefined) {
      this.ended = true;
      this.emit('error', Object.assign(new Error('the spawn helper exited'), { code: 'EHELPER' }));
      return;
    }
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    this.end(null, 'SIGKILL');
  }

  private end(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    this.emit('exit', code, signal);
    this.stdout.end();
    this.stderr.end();
    // Like Node: 'close' after both streams have ended (their data was written before 'close').
    let open = 2;
    const drained = () => {
      open--;
      if (open === 0) this.emit('close', code, signal);
    };
    for (const stream of [this.stdout, this.stderr]) {
      if (stream.readableEnded) drained();
      else stream.once('end', drained);
    }
  }
}
