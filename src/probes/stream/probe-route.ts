import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Resolver } from '../../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../../dns/target-policy.ts';
import { apiErrors } from '../../http/errors.ts';
import { type EventStream, openEventStream, SSE_HEADERS } from '../../http/sse.ts';
import { publicCaller } from '../../limits/caller.ts';
import type { SpawnTurns } from '../spawn/spawn-turns.ts';
import type { Spawner } from '../spawn/spawner.ts';
import { parseProbeHost } from './host-param.ts';
import {
  type InProcessSession,
  type ProbeSession,
  type ProbeStreamContext,
  runProbeStream,
  type StreamEnd,
} from './probe-stream.ts';
import { type ProbeToolDefinition, probeTimeLimitMs } from './probe-tool.ts';
import type { StreamSlots } from './slots.ts';

/** What every stream route is built from (one set, shared, so the caps count ping, traceroute and MTR together). */
export interface ProbeRouteDeps {
  resolver: Resolver;
  policy: TargetPolicy;
  spawner: Spawner;
  spawnTurns: SpawnTurns;
  slots: StreamSlots;
  shutdownSignal: AbortSignal;
  now: () => number;
  /** The longest a name resolution may take (the resolver's deadline): part of how long a slot is held. */
  resolveDeadlineMs: number;
  streamCounts: StreamCounts;
}

export type CountedStreamEnd = 'done' | 'error' | 'client_gone' | 'time_limit' | 'shutdown';

export interface StreamCounts {
  started(tool: string): void;
  ended(tool: string, end: CountedStreamEnd): void;
}

const COUNTED_END: Record<StreamEnd, CountedStreamEnd> = {
  done: 'done',
  failed: 'error',
  'not-started': 'error',
  'time-limit': 'time_limit',
  shutdown: 'shutdown',
  'client-gone': 'client_gone',
};

/** What a stream request runs: the tool, the count asked (its time limit grows with it), the session to start. */
export interface ProbeRun {
  readonly tool: ProbeToolDefinition;
  readonly count?: number;
  createSession(
    target: { address: string; family: 4 | 6 },
    emit: (event: object) => void,
  ): ProbeSession | InProcessSession;
}

function probeQuery(host: string, family: '4' | '6' | undefined): { host: string; family: 4 | 6 | 'any' } {
  const parsed = parseProbeHost(host);
  if (!parsed.ok) throw apiErrors.invalidParameter('host', `${parsed.reason}; give a host name or an IP address`);
  const asked = family === undefined ? 'any' : family === '4' ? 4 : 6;
  if (asked !== 'any' && parsed.literal !== null && parsed.literal !== asked) {
    throw apiErrors.invalidParameter('family', `is ${asked} but host is an IPv${parsed.literal} address`);
  }
  return { host: parsed.host, family: asked };
}

/** A name without an address is the caller's 400; a resolver that failed is a 502, as /ssl answers them. */
async function probeTarget(query: { host: string; family: 4 | 6 | 'any' }, deps: ProbeRouteDeps) {
  const target = await resolveTarget(query.host, {
    resolver: deps.resolver,
    policy: deps.policy,
    family: query.family,
  });
  if (target.ok) return target;
  if (target.reason === 'dns-failure') throw apiErrors.upstream(`${target.message}.`);
  throw apiErrors.invalidParameter('host', target.message);
}

/**
 * Every probe route's flow, in the order the API promises: a bad parameter is a 400 and a spent cap a
 * 429 before anything runs; then the host is resolved (400 or 502); only then does the stream open,
 * and from there every failure is an `error` event that ends it.
 */
export async function handleProbeRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ProbeRouteDeps,
  query: { host: string; family?: '4' | '6' | undefined },
  run: ProbeRun,
): Promise<void> {
  const target = probeQuery(query.host, query.family);
  const tool = { name: run.tool.name, timeLimitMs: probeTimeLimitMs(run.tool, run.count) };
  if (request.method === 'HEAD') {
    // The status a GET would get, and the stream's headers, but no probe (and no slot taken).
    await probeTarget(target, deps);
    reply.code(200).headers(SSE_HEADERS).send();
    return;
  }
  const client = request.caller?.subject ?? publicCaller(request.clientIp).subject;
  const slot = await deps.slots.acquire(client, deps.now() + deps.resolveDeadlineMs + tool.timeLimitMs);
  if (!slot.ok) throw apiErrors.tooManyStreams(slot.scope, slot.limit, Math.ceil(slot.freeByMs / 1000), deps.now());
  try {
    const resolved = await probeTarget(target, deps);
    if (request.raw.socket?.destroyed) {
      // The client left while the name was resolved: nobody to stream to.
      reply.hijack();
      return;
    }
    const stream = openEventStream(request, reply);
    await streamProbe(request, stream, resolved, deps, tool, run);
  } finally {
    slot.release();
  }
}

async function streamProbe(
  request: FastifyRequest,
  stream: EventStream,
  target: { host: string; address: string; family: 4 | 6 },
  deps: ProbeRouteDeps,
  tool: ProbeStreamContext['tool'],
  run: ProbeRun,
): Promise<void> {
  const started = deps.now();
  let counted = false;
  try {
    const session = run.createSession(target, stream.send);
    deps.streamCounts.started(tool.name);
    counted = true;
    const end = await runProbeStream(session, {
      stream,
      spawner: deps.spawner,
      spawnTurns: deps.spawnTurns,
      shutdownSignal: deps.shutdownSignal,
      startEvent: { type: 'start', host: target.host, resolved_ip: target.address },
      tool,
    });
    deps.streamCounts.ended(tool.name, COUNTED_END[end]);
    counted = false;
    request.log.info(
      { tool: tool.name, target: target.address, stream: stream.id, end, ms: deps.now() - started },
      'stream ended',
    );
  } catch (error) {
    if (counted) deps.streamCounts.ended(tool.name, 'error');
    // Past hijack() Fastify's error handler cannot answer any more: the stream says it instead.
    request.log.error({ err: error }, 'stream failed');
    stream.send({ type: 'error', message: `Internal error; quote request id ${request.id} when reporting it.` });
    stream.close();
  }
}
