// The spawn helper's program (see spawn-helper.ts): a small Node process that starts the tools the
// server asks for, relays their output and exit over IPC, and kills them when told to or when the
// server goes away. Its fork of itself is cheap because it stays small.

import type { HelperReply, HelperRequest } from './spawn-helper-protocol.ts';
import { createSpawnTurns } from './spawn-turns.ts';
import { type SpawnedTool, spawnTool } from './spawner.ts';

const children = new Map<number, SpawnedTool>();
/** Spawns waiting for their turn, and those of them the server has already asked to kill. */
const waiting = new Set<number>();
const cancelled = new Set<number>();
const turns = createSpawnTurns();

function reply(message: HelperReply): void {
  if (process.connected) process.send?.(message);
}

async function start(id: number, command: string, args: string[]): Promise<void> {
  waiting.add(id);
  await turns.next();
  waiting.delete(id);
  if (cancelled.delete(id)) {
    // Killed before it existed (the client left while it waited for its turn): never start it.
    reply({ type: 'error', id, code: 'ECANCELED', message: 'stopped before it was started' });
    return;
  }
  let child: SpawnedTool;
  try {
    child = spawnTool(command, args);
  } catch (error) {
    reply({ type: 'error', id, code: (error as NodeJS.ErrnoException).code, message: (error as Error).message });
    return;
  }
  children.set(id, child);
  child.once('spawn', () => reply({ type: 'spawn', id, pid: child.pid ?? 0 }));
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid === undefined) {
      children.delete(id);
      reply({ type: 'error', id, code: error.code, message: error.message });
    }
  });
  child.stdout.on('data', (data: Buffer) => reply({ type: 'data', id, fd: 1, data }));
  child.stderr.on('data', (data: Buffer) => reply({ type: 'data', id, fd: 2, data }));
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    if (child.pid === undefined) return;
    children.delete(id);
    reply({ type: 'close', id, code, signal });
  });
}

process.on('message', (message: HelperRequest) => {
  if (message.type === 'spawn') void start(message.id, message.command, message.args);
  else if (message.type === 'kill') {
    const child = children.get(message.id);
    if (child) child.kill(message.signal);
    else if (waiting.has(message.id)) cancelled.add(message.id);
  }
});

// The server closed the channel (it is closing, or it died): no tool outlives it. Wait for the
// killed tools to be reaped before exiting, so none is left as a zombie for init to collect.
process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  const exit = () => process.exit(0);
  if (children.size === 0) exit();
  for (const child of children.values()) child.once('close', () => children.size === 0 && exit());
  setTimeout(exit, 2000).unref();
});
