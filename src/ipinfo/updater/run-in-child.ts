import { spawn } from 'node:child_process';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { UpdateError } from './download.ts';
import type { SourceReport, UpdatePlan } from './run-update.ts';

const CHILD = path.join(import.meta.dirname, 'update-child.ts');

/** runDataUpdate in a child process (see update-child.ts); rejects with the child's reason. */
export async function runDataUpdateInChild(plan: UpdatePlan): Promise<SourceReport[]> {
  const child = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'pipe'] });
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
  throw new UpdateError(
    result.error ?? `the update process exited with ${code}: ${errors.trim().split('\n').at(-1) ?? ''}`,
  );
}
