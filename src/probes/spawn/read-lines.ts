import type { Readable } from 'node:stream';
import { createLineSplitter } from './line-splitter.ts';

/** Calls onLine for every line of a child's stdout or stderr; resolves when the stream ends. */
export async function forEachLine(stream: Readable, onLine: (line: string) => void): Promise<void> {
  const splitter = createLineSplitter();
  for await (const chunk of stream) {
    for (const line of splitter.push(chunk as Buffer | string)) onLine(line);
  }
  for (const line of splitter.end()) onLine(line);
}
