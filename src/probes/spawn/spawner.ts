import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export type SpawnedTool = ChildProcessByStdio<null, Readable, Readable>;

/** How a service starts a system tool; tests pass a fake that replays a captured output. */
export type Spawner = (command: string, args: readonly string[]) => SpawnedTool;

// LC_ALL=C: the parsers expect the C locale's output (a decimal point in `time=0.041 ms`, English
// messages); a German locale would print `0,041`.
export const spawnTool: Spawner = (command, args) =>
  spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
