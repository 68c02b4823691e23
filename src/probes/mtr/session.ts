import { createLineSplitter } from '../spawn/line-splitter.ts';
import type { ProbeSession } from '../stream/probe-stream.ts';
import { toolFailureMessage } from '../stream/probe-stream.ts';
import { buildMtrArgs, MTR_DEFAULT_GRACE_SECONDS, MTR_DEFAULT_MAX_HOPS, MTR_INTERVAL_SECONDS } from './args.ts';
import type { MtrEvent, MtrHopEvent } from './events.ts';
import { parseMtrLine } from './parse.ts';
import { createMtrProgress, type MtrHopStats } from './progress.ts';

/** Slack on top of the rounds and mtr's grace wait: its start and the last answers. */
const TIME_LIMIT_SLACK_SECONDS = 5;

/** The stream's wall-clock limit for `count` rounds: count + 2 (grace) + 5 seconds. */
export function mtrTimeLimitMs(count: number): number {
  return (count * MTR_INTERVAL_SECONDS + MTR_DEFAULT_GRACE_SECONDS + TIME_LIMIT_SLACK_SECONDS) * 1000;
}

/**
 * One mtr run for the stream: `count` rounds, one a second. Each hop's figures go out as soon as a
 * line changes them, with the hop's hostname: the first time an address shows up its name is looked
 * up (waiting at most TRACEROUTE_HOSTNAME_WAIT_MS, as traceroute does), later events reuse it.
 * Events keep the order of the lines they come from.
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
  const pending = new Map<string, Promise<string>>();
  let lastStderrLine: string | null = null;
  // Events wait in this chain only while a hostname is being looked up.
  const settledQueue = Promise.resolve();
  let queue = settledQueue;

  const nameOf = (ip: string): Promise<string> => {
    let lookup = pending.get(ip);
    if (!lookup) {
      lookup = options.hostnameOf(ip).then((name) => {
        names.set(ip, name);
        return name;
      });
      pending.set(ip, lookup);
    }
    return lookup;
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
    timeLimitMs: mtrTimeLimitMs(count),
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
