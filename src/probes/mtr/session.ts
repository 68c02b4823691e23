import { sharedWhileInFlight } from '../../cache/in-flight.ts';
import { createLineSplitter } from '../spawn/line-splitter.ts';
import type { ProbeSession } from '../stream/probe-stream.ts';
import { toolFailureMessage } from '../stream/probe-stream.ts';
import { buildMtrArgs, MTR_DEFAULT_MAX_HOPS } from './args.ts';
import type { MtrEvent, MtrHopEvent } from './events.ts';
import { parseMtrLine } from './parse.ts';
import { createMtrProgress, type MtrHopStats } from './progress.ts';

/**
 * One mtr run for the stream. Each hop's figures go out as soon as a line changes them, with the
 * hop's hostname, looked up the first time its address shows up; events keep the order of the lines
 * they come from.
 */
export function createMtrSession(options: {
  address: string;
  family: 4 | 6;
  count: number;
  hostnameOf: (ip: string) => Promise<string>;
  emit: (event: MtrEvent) => void;
}): ProbeSession {
  const { emit, count } = options;
  const args = buildMtrArgs({ address: options.address, family: options.family, count });
  const progress = createMtrProgress({ destination: options.address, maxHops: MTR_DEFAULT_MAX_HOPS });
  const stdout = createLineSplitter();
  const stderr = createLineSplitter();
  const names = new Map<string, string>();
  const lookup = sharedWhileInFlight<string, string>();
  let lastStderrLine: string | null = null;
  // Events wait in this chain only while a hostname is being looked up.
  const settledQueue = Promise.resolve();
  let queue = settledQueue;

  const nameOf = (ip: string): Promise<string> => {
    const known = names.get(ip);
    if (known !== undefined) return Promise.resolve(known);
    return lookup(ip, () =>
      options.hostnameOf(ip).then((name) => {
        names.set(ip, name);
        return name;
      }),
    );
  };
  const withName = ({ hop, ip, ...figures }: MtrHopStats, hostname: string | null) => ({
    hop,
    ip,
    hostname,
    ...figures,
  });

  const send = (changed: MtrHopStats[]) => {
    for (const stats of changed) {
      const known = stats.ip === null ? null : names.get(stats.ip);
      if (known !== undefined && queue === settledQueue) {
        // Nothing waits for a name: the event goes out with this line, not a microtask later.
        emit(hopEvent(withName(stats, known)));
        continue;
      }
      const hostname = stats.ip === null ? Promise.resolve(null) : nameOf(stats.ip);
      const next = queue.then(async () => emit(hopEvent(withName(stats, await hostname))));
      queue = next;
      next.then(() => {
        if (queue === next) queue = settledQueue;
      });
    }
  };
  const handle = (text: string) => {
    const line = parseMtrLine(text);
    if (line) send(progress.accept(line));
  };
  const handleStderr = (text: string) => {
    if (text.trim() !== '') lastStderrLine = text.trim();
    handle(text);
  };

  return {
    command: 'mtr',
    args,
    stdout: (chunk) => stdout.push(chunk).forEach(handle),
    stderr: (chunk) => stderr.push(chunk).forEach(handleStderr),
    settled: () => queue,
    async finish(exit) {
      stdout.end().forEach(handle);
      stderr.end().forEach(handleStderr);
      await queue;
      const result = progress.finish(exit.code);
      if (!result) return { failure: toolFailureMessage('mtr', exit, progress.toolError ?? lastStderrLine) };
      const hops = await Promise.all(
        result.hops.map(async (stats) => withName(stats, stats.ip === null ? null : await nameOf(stats.ip))),
      );
      return { events: [{ type: 'done', hops, reached: result.reached }] };
    },
  };
}

function hopEvent(stats: MtrHopStats & { hostname: string | null }): MtrHopEvent {
  return { type: 'hop', ...stats };
}
