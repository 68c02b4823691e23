import { createLineSplitter } from '../spawn/line-splitter.ts';
import type { ProbeSession } from '../stream/probe-stream.ts';
import { toolFailureMessage } from '../stream/probe-stream.ts';
import { buildPingArgs } from './args.ts';
import type { PingEvent } from './events.ts';
import { parsePingLine } from './parse.ts';
import { createPingProgress } from './progress.ts';

/** One ping run for the stream: each line of ping's output an event at once. */
export function createPingSession(options: {
  address: string;
  family: 4 | 6;
  count: number;
  emit: (event: PingEvent) => void;
}): ProbeSession {
  const { count, emit } = options;
  const args = buildPingArgs({ address: options.address, family: options.family, count });
  const progress = createPingProgress(count);
  const stdout = createLineSplitter();
  const stderr = createLineSplitter();
  let lastStderrLine: string | null = null;

  const handle = (line: string) => {
    const parsed = parsePingLine(line);
    if (parsed) for (const event of progress.accept(parsed)) emit(event);
  };
  const handleStderr = (line: string) => {
    if (line.trim() !== '') lastStderrLine = line.trim();
    handle(line);
  };

  return {
    command: 'ping',
    args,
    stdout: (chunk) => stdout.push(chunk).forEach(handle),
    stderr: (chunk) => stderr.push(chunk).forEach(handleStderr),
    settled: async () => {},
    async finish(exit) {
      stdout.end().forEach(handle);
      stderr.end().forEach(handleStderr);
      const closing = progress.finish();
      if (closing) return { events: closing };
      return { failure: toolFailureMessage('ping', exit, progress.toolError ?? lastStderrLine) };
    },
  };
}
