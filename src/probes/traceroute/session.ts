import { createLineSplitter } from '../spawn/line-splitter.ts';
import type { ProbeSession } from '../stream/probe-stream.ts';
import { toolFailureMessage } from '../stream/probe-stream.ts';
import {
  buildTracerouteArgs,
  TRACEROUTE_DEFAULT_MAX_HOPS,
  TRACEROUTE_DEFAULT_QUERIES,
  type TracerouteProtocol,
} from './args.ts';
import type { TracerouteEvent, TracerouteHopEvent } from './events.ts';
import { createHopReader } from './hop-reader.ts';
import type { TracerouteHop, TracerouteLine } from './parse.ts';
import { parseTracerouteLine } from './parse.ts';
import { createTracerouteProgress } from './progress.ts';

/**
 * Hops go out in order, each as soon as traceroute prints it and its hostname is known (or the
 * lookup's short wait is over); lookups run in parallel, so a slow one delays the hops behind it by
 * that wait at most, once.
 */
export function createTracerouteSession(options: {
  address: string;
  family: 4 | 6;
  protocol?: TracerouteProtocol;
  port?: number | undefined;
  hostnameOf: (ip: string) => Promise<string>;
  emit: (event: TracerouteEvent) => void;
}): ProbeSession {
  const { emit, hostnameOf } = options;
  const queries = TRACEROUTE_DEFAULT_QUERIES;
  const args = buildTracerouteArgs({
    address: options.address,
    family: options.family,
    queries,
    protocol: options.protocol ?? 'udp',
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  const progress = createTracerouteProgress({ destination: options.address, maxHops: TRACEROUTE_DEFAULT_MAX_HOPS });
  const reader = createHopReader(queries);
  const stderr = createLineSplitter();
  let lastStderrLine: string | null = null;
  let queue = Promise.resolve();
  let checkScheduled = false;

  const handle = (line: TracerouteLine) => {
    const hop = progress.accept(line);
    if (hop === null) return;
    const hostname = hop.ip === null ? Promise.resolve(null) : hostnameOf(hop.ip);
    queue = queue.then(async () => emit(hopEvent(hop, await hostname)));
  };
  // Runs after the current burst of output is handled (setImmediate): see HopReader.takeCompleteHop.
  const checkUnfinishedLine = () => {
    if (checkScheduled) return;
    checkScheduled = true;
    setImmediate(() => {
      checkScheduled = false;
      const hop = reader.takeCompleteHop();
      if (hop) handle(hop);
    });
  };
  const handleStderr = (text: string) => {
    if (text.trim() !== '') lastStderrLine = text.trim();
    const line = parseTracerouteLine(text);
    if (line) handle(line);
  };

  return {
    command: 'traceroute',
    args,
    stdout(chunk) {
      reader.push(chunk).forEach(handle);
      checkUnfinishedLine();
    },
    stderr: (chunk) => stderr.push(chunk).forEach(handleStderr),
    settled: () => queue,
    async finish(exit) {
      reader.end().forEach(handle);
      stderr.end().forEach(handleStderr);
      await queue;
      const done = progress.finish(exit.code);
      if (done) return { events: [done] };
      return { failure: toolFailureMessage('traceroute', exit, progress.toolError ?? lastStderrLine) };
    },
  };
}

function hopEvent(hop: TracerouteHop, hostname: string | null): TracerouteHopEvent {
  const event: TracerouteHopEvent = { type: 'hop', hop: hop.hop, ip: hop.ip, hostname, rtt_ms: hop.rtt_ms };
  if (hop.annotation) event.annotation = hop.annotation;
  return event;
}
