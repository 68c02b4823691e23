// A worker thread for sqlite.test.ts: opens each of the given fresh database files at the same
// moment as the other workers (a barrier per file), and reports the errors it met.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteDatabase } from '../../src/storage/sqlite-database.ts';

const { files, gates, workers } = workerData as { files: string[]; gates: Int32Array; workers: number };
const errors: string[] = [];
for (const [index, file] of files.entries()) {
  Atomics.add(gates, index, 1);
  while (Atomics.load(gates, index) < workers) {
    // Spin: all workers open the file within microseconds of each other.
  }
  try {
    openSqliteDatabase(file).close();
  } catch (error) {
    errors.push((error as Error).message);
  }
}
parentPort?.postMessage(errors);
