import type { Spawner } from './spawner.ts';

/** How a tool run ended. */
export type ToolOutcome =
  /** The tool exited by itself (any exit code: ping exits 1 when packets were lost). */
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  /** It never ran: ENOENT when it is not installed, EACCES... */
  | { kind: 'not-started'; error: NodeJS.ErrnoException }
  /** `signal` was aborted and the process was killed (and reaped) before it finished. */
  | { kind: 'stopped' };

export interface ToolHandlers {
  /** Stops the run: the process is killed with SIGKILL. */
  signal: AbortSignal;
  onStdout: (chunk: Buffer) => void;
  onStderr: (chunk: Buffer) => void;
}

/**
 * Runs a tool to its end and reports how it ended. Resolves only once the process has exited and
 * been reaped (Node waits for it) and both pipes are drained, so nothing of it remains afterwards.
 * SIGKILL, not SIGTERM: ping answers SIGTERM by printing its statistics, output nobody reads any more.
 */
export function runTool(
  spawner: Spawner,
  command: string,
  args: readonly string[],
  handlers: ToolHandlers,
): Promise<ToolOutcome> {
  const { signal } = handlers;
  if (signal.aborted) return Promise.resolve({ kind: 'stopped' });
  return new Promise((resolve) => {
    let child: ReturnType<Spawner>;
    try {
      child = spawner(command, args);
    } catch (error) {
      resolve({ kind: 'not-started', error: error as NodeJS.ErrnoException });
      return;
    }
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop(); // aborted while the spawner ran
    const finish = (outcome: ToolOutcome) => {
      signal.removeEventListener('abort', stop);
      resolve(outcome);
    };
    child.stdout.on('data', handlers.onStdout);
    child.stderr.on('data', handlers.onStderr);
    // `on`, not `once`: an 'error' without a listener would crash the server. Only a failure to start
    // ends the run here; a failed kill() of a running process also emits 'error', and 'close' follows.
    child.on('error', (error: NodeJS.ErrnoException) => {
      // A spawner that starts tools elsewhere (the spawn helper) may be told to stop one that it has
      // not started yet: it then never starts, and the run was stopped, not failed.
      if (child.pid === undefined) finish(stopped ? { kind: 'stopped' } : { kind: 'not-started', error });
    });
    child.once('close', (code: number | null, exitSignal: NodeJS.Signals | null) => {
      if (child.pid === undefined) return;
      finish(stopped ? { kind: 'stopped' } : { kind: 'exited', code, signal: exitSignal });
    });
  });
}
