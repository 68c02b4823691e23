// A Spawner whose children are scripted: tests write their output chunk by chunk and decide when and
// how they exit, without running anything. The fake behaves like a real child where the stream
// relies on it: 'spawn' before any output, SIGKILL ends it with 'exit' and 'close', output written
// after the end is dropped.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { SpawnedTool, Spawner } from '../../src/probes/spawn/spawner.ts';
import { type CapturedOutput, halfLineChunks } from './captured-output.ts';

export interface FakeChild {
  readonly command: string;
  readonly args: readonly string[];
  readonly pid: number;
  /** The signal it was killed with, if any. */
  readonly killedWith: string | null;
  readonly exited: boolean;
  stdout(chunk: string | Buffer): void;
  stderr(chunk: string | Buffer): void;
  exit(code: number): void;
}

let nextPid = 4_000_000;

/** Every child the spawner made, in order; `onSpawn` scripts each one. */
export function createFakeSpawner(onSpawn: (child: FakeChild) => void = () => {}) {
  const children: FakeChild[] = [];
  const spawner: Spawner = (command, args) => {
    const emitter = new EventEmitter();
    const out = new PassThrough();
    const err = new PassThrough();
    let killedWith: string | null = null;
    let exited = false;
    const end = (code: number | null, signal: string | null) => {
      if (exited) return;
      exited = true;
      out.end();
      err.end();
      emitter.emit('exit', code, signal);
      // Like Node: 'close' once the pipes are drained.
      let open = 2;
      const drained = () => {
        open--;
        if (open === 0) emitter.emit('close', code, signal);
      };
      out.once('end', drained).resume();
      err.once('end', drained).resume();
    };
    const child: FakeChild = {
      command,
      args,
      pid: nextPid++,
      get killedWith() {
        return killedWith;
      },
      get exited() {
        return exited;
      },
      stdout: (chunk) => {
        if (!exited) out.write(chunk);
      },
      stderr: (chunk) => {
        if (!exited) err.write(chunk);
      },
      exit: (code) => end(code, null),
    };
    const fake = Object.assign(emitter, {
      pid: child.pid,
      stdout: out,
      stderr: err,
      kill(signal: string = 'SIGTERM') {
        if (exited) return false;
        killedWith = signal;
        setImmediate(() => end(null, signal));
        return true;
      },
    });
    children.push(child);
    process.nextTick(() => {
      emitter.emit('spawn');
      onSpawn(child);
    });
    return fake as unknown as SpawnedTool;
  };
  return { spawner, children };
}

/**
 * Replays a capture: stdout in half-line chunks (each on its own turn of the event loop, as pipe
 * reads would arrive), then stderr likewise, then the recorded exit code.
 */
export function replayInHalfLines(capture: CapturedOutput, exitCode: number) {
  return async (child: FakeChild) => {
    for (const chunk of halfLineChunks(capture.stdout)) {
      await new Promise((resolve) => setImmediate(resolve));
      child.stdout(chunk);
    }
    for (const chunk of halfLineChunks(capture.stderr)) {
      await new Promise((resolve) => setImmediate(resolve));
      child.stderr(chunk);
    }
    await new Promise((resolve) => setImmediate(resolve));
    child.exit(exitCode);
  };
}

/** What `ping -c 1 127.0.0.1` prints: one reply and the statistics. */
export const ONE_PING_REPLY = [
  'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.',
  '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.040 ms',
  '',
  '--- 127.0.0.1 ping statistics ---',
  '1 packets transmitted, 1 received, 0% packet loss, time 0ms',
  'rtt min/avg/max/mdev = 0.040/0.040/0.040/0.000 ms',
  '',
].join('\n');

/** A fake ping that prints one reply and exits, like `ping -c 1`. */
export const pingOnce = (child: FakeChild) => {
  child.stdout(ONE_PING_REPLY);
  child.exit(0);
};
