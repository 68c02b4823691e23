import type { EventStream } from '../../http/sse.ts';
import { runTool } from '../spawn/run-tool.ts';
import type { SpawnTurns } from '../spawn/spawn-turns.ts';
import type { Spawner } from '../spawn/spawner.ts';

/**
 * What one tool brings to a live stream: its command line, and how its output becomes events. The
 * session emits events through the function it was made with; this module owns the process, the
 * time limit, the client and shutdown, the same way for every probe.
 */
export interface ProbeSession {
  /** The system command, as named in the messages about it (`ping is not installed...`). */
  readonly command: string;
  readonly args: readonly string[];
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Resolves once every event of the output seen so far has been emitted (traceroute's hops wait for names). */
  settled(): Promise<void>;
  /** After the tool exited by itself: emits what its last output makes, then gives the closing events or why there are none. */
  finish(exit: ToolExit): Promise<{ events: object[] } | { failure: string }>;
}

/**
 * A probe the service runs itself, without a process (TCP ping): `run` emits its events as they
 * happen and gives the closing ones; it stops early, resolving with anything, once `signal` aborts
 * (client gone, time limit, shutdown), and must leave no socket or timer behind.
 */
export interface InProcessSession {
  run(signal: AbortSignal): Promise<{ events: object[] } | { failure: string }>;
}

export type ToolExit = { code: number | null; signal: NodeJS.Signals | null };

export type StreamEnd = 'done' | 'failed' | 'not-started' | 'time-limit' | 'shutdown' | 'client-gone';

export interface ProbeStreamContext {
  stream: EventStream;
  spawner: Spawner;
  /** Shared by every stream of the server: one spawn per turn of the event loop. */
  spawnTurns: SpawnTurns;
  shutdownSignal: AbortSignal;
  startEvent: object;
  /** The tool's one name and the limit on its run; past it the run is stopped with an error event. */
  tool: { readonly name: string; readonly timeLimitMs: number };
}

const SHUTDOWN_MESSAGE = 'The server is shutting down; the stream was stopped before it finished.';

/** Runs the session's tool behind the stream: start, the session's events, then done or one error. Never throws. */
export async function runProbeStream(
  session: ProbeSession | InProcessSession,
  context: ProbeStreamContext,
): Promise<StreamEnd> {
  const { stream, spawner, shutdownSignal, tool } = context;
  // One signal that stops the tool: client gone, shutdown or time limit. Listeners are removed at
  // the end, so the server-wide shutdown signal does not collect one per stream ever served.
  const stop = new AbortController();
  const abort = () => stop.abort();
  let timer: NodeJS.Timeout | undefined;
  for (const source of [stream.clientGone, shutdownSignal]) {
    if (source.aborted) abort();
    source.addEventListener('abort', abort);
  }
  try {
    // `start` goes out before the tool is spawned: everything in it is known, and spawning blocks
    // this process for the fork. Node sends a response's writes on the next tick; waiting for a
    // spawn turn (the next turn of the event loop at the earliest) lets `start` leave first.
    stream.send(context.startEvent);
    if ('run' in session) {
      timer = setTimeout(abort, tool.timeLimitMs);
      const result = await session.run(stop.signal);
      if (stream.clientGone.aborted) return 'client-gone';
      if (stop.signal.aborted) return stoppedBy(tool, shutdownSignal, stream);
      if ('failure' in result) {
        stream.send({ type: 'error', message: result.failure });
        return 'failed';
      }
      for (const event of result.events) stream.send(event);
      return 'done';
    }
    await context.spawnTurns.next();
    // The limit is on the tool's run: a wait for a turn while many streams start is not its fault.
    timer = setTimeout(abort, tool.timeLimitMs);
    const outcome = await runTool(spawner, session.command, session.args, {
      signal: stop.signal,
      onStdout: (chunk) => session.stdout(chunk),
      onStderr: (chunk) => session.stderr(chunk),
    });
    if (stream.clientGone.aborted) return 'client-gone';
    if (outcome.kind === 'not-started') {
      stream.send({ type: 'error', message: notStartedMessage(session.command, outcome.error) });
      return 'not-started';
    }
    if (outcome.kind === 'stopped') {
      await session.settled();
      return stoppedBy(tool, shutdownSignal, stream);
    }
    const result = await session.finish(outcome);
    if ('failure' in result) {
      stream.send({ type: 'error', message: result.failure });
      return 'failed';
    }
    for (const event of result.events) stream.send(event);
    return 'done';
  } finally {
    clearTimeout(timer);
    for (const source of [stream.clientGone, shutdownSignal]) source.removeEventListener('abort', abort);
    stream.close();
  }
}

function stoppedBy(tool: ProbeStreamContext['tool'], shutdownSignal: AbortSignal, stream: EventStream): StreamEnd {
  const shutdown = shutdownSignal.aborted;
  stream.send({
    type: 'error',
    message: shutdown
      ? SHUTDOWN_MESSAGE
      : `${tool.name} did not finish within ${tool.timeLimitMs / 1000} seconds and was stopped.`,
  });
  return shutdown ? 'shutdown' : 'time-limit';
}

function notStartedMessage(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `${command} is not installed on this server, so it cannot be run.`;
  return `${command} could not be started (${error.code ?? error.message}).`;
}

/** The tool's own complaint when it printed one (`connect: Network is unreachable`) says most. */
export function toolFailureMessage(command: string, exit: ToolExit, complaint: string | null): string {
  if (complaint) return `${command} failed: ${complaint}`;
  if (exit.signal) return `${command} was ended by ${exit.signal} before giving a result.`;
  return `${command} exited with code ${exit.code} without giving a result.`;
}
