import { spawn } from 'node:child_process';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { UpdateError } from './download.ts';
import type { SourceReport } from './run-update.ts';
import type { UpdatePlan } from './update-plan.ts';

const CHILD = path.join(import.meta.dirname, 'update-child.ts');

/**
 * runDataUpdate in a child process (see update-child.ts); rejects with the child's reason. When
 * `signal` aborts (the service is closing) the child is terminated: it must not go on downloading
 * and installing, holding the update lock, after the service that started it is gone. What it
 * leaves (a lock of a dead process, partial downloads) the next run clears.
 */
export async function runDataUpdateInChild(plan: UpdatePlan, signal?: AbortSignal): Promise<SourceReport[]> {
  signal?.throwIfAborted();
  const child = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'pipe'], ...(signal ? { signal } : {}) });
  // With a signal, an abort also emits 'error' (AbortError); the 'close' below reports it.
  child.on('error', () => {});
  child.stdin.end(JSON.stringify(plan));
  const [output, errors, code] = await Promise.all([
    text(child.stdout),
    text(child.stderr),
    new Promise<number | null>((resolve) => child.on('close', resolve)),
  ]);
  let result: { reports?: SourceReport[]; error?: string } = {};
  try {
    result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
  } catch {
    // Reported below with what the child wrote to stderr.
  }
  if (result.reports !== undefined) return result.reports;
  if (signal?.aborted) throw new UpdateError('stopped: the service is closing');
  throw new UpdateError(
    result.error ?? `the update process exited with ${code}: ${errors.trim().split('\n').at(-1) ?? ''}`,
  );
}
