import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Resolver } from '../../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../../dns/target-policy.ts';
import { apiErrors } from '../../http/errors.ts';
import { type EventStream, openEventStream, SSE_HEADERS } from '../../http/sse.ts';
import { publicCaller } from '../../limits/caller.ts';
import type { SpawnTurns } from '../spawn/spawn-turns.ts';
import type { Spawner } from '../spawn/spawner.ts';
import { parseProbeHost } from './host-param.ts';
import { type InProcessSession, type ProbeSession, runProbeStream, type StreamEnd } from './probe-stream.ts';
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
  /** Told when a stream opens and how it ends (netinfo_streams_active and netinfo_streams_total). */
  streamCounts: StreamCounts;
}

/** How a stream ended, as netinfo_streams_total{end} names it. */
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

export interface ProbeQuery {
  host: string;
  family?: '4' | '6';
}

export interface ProbeTool {
  /** What the stream is counted as (netinfo_streams_*{tool}). */
  name: 'ping' | 'tcp_ping' | 'traceroute' | 'mtr';
  /** The stream's time limit, for the slot's hold time; the session enforces it. */
  timeLimitMs: number;
  createSession(
    target: { address: string; family: 4 | 6 },
    emit: (event: object) => void,
  ): ProbeSession | InProcessSession;
}

/** The host and family of a probe request, or the catalogue's 400. */
function probeQuery(query: ProbeQuery): { host: string; family: 4 | 6 | 'any' } {
  const parsed = parseProbeHost(query.host);
  if (!parsed.ok) throw apiErrors.invalidParameter('host', `${parsed.reason}; give a host name or an IP address`);
  const family = query.family === undefined ? 'any' : query.family === '4' ? 4 : 6;
  if (family !== 'any' && parsed.literal !== null && parsed.literal !== family) {
    throw apiErrors.invalidParameter('family', `is ${family} but host is an IPv${parsed.literal} address`);
  }
  return { host: parsed.host, family };
}

/**
 * Resolves once through the project's resolver, before any stream: a forbidden address and a name
 * without an address (NXDOMAIN, or no record of the family) are the caller's 400; a resolver that
 * failed (timeout, SERVFAIL) is a 502, as /ssl answers them.
 */
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
 * The shared shape of /ping and /traceroute, in the order the API promises:
 * a bad parameter is a 400 and a spent cap a 429 before anything runs; then the host is resolved once
 * through the project's resolver: a forbidden address or a name without one is a 400 too, a failed
 * resolver a 502. Only then does the stream open; from there every failure (tool missing or
 * failing, time limit, shutdown) is an `error` event that ends it.
 */
export async function handleProbeRequest(
  request: FastifyRequest<{ Querystring: ProbeQuery }>,
  reply: FastifyReply,
  deps: ProbeRouteDeps,
  tool: ProbeTool,
): Promise<void> {
  const query = probeQuery(request.query);
  if (request.method === 'HEAD') {
    // The status a GET would get, and the stream's headers, but no probe (and no slot taken).
    await probeTarget(query, deps);
    reply.code(200).headers(SSE_HEADERS).send();
    return;
  }
  const client = request.caller?.subject ?? publicCaller(request.clientIp).subject;
  const slot = await deps.slots.acquire(client, deps.now() + deps.resolveDeadlineMs + tool.timeLimitMs);
  if (!slot.ok) throw apiErrors.tooManyStreams(slot.scope, slot.limit, Math.ceil(slot.freeByMs / 1000), deps.now());
  try {
    const target = await probeTarget(query, deps);
    if (request.raw.socket?.destroyed) {
      // The client left while the name was resolved: nobody to stream to.
      reply.hijack();
      return;
    }
    const stream = openEventStream(request, reply);
    await streamProbe(request, stream, target, deps, tool);
  } finally {
    slot.release();
  }
}

/** Runs the tool behind an open stream and logs how it ended. */
async function streamProbe(
  request: FastifyRequest,
  stream: EventStream,
  target: { host: string; address: string; family: 4 | 6 },
  deps: ProbeRouteDeps,
  tool: ProbeTool,
): Promise<void> {
  const started = deps.now();
  let counted: string | undefined;
  try {
    const session = tool.createSession(target, stream.send);
    counted = tool.name;
    deps.streamCounts.started(counted);
    const end = await runProbeStream(session, {
      stream,
      spawner: deps.spawner,
      spawnTurns: deps.spawnTurns,
      shutdownSignal: deps.shutdownSignal,
      startEvent: { type: 'start', host: target.host, resolved_ip: target.address },
    });
    deps.streamCounts.ended(counted, COUNTED_END[end]);
    counted = undefined;
    request.log.info(
      { tool: session.command, target: target.address, stream: stream.id, end, ms: deps.now() - started },
      'stream ended',
    );
  } catch (error) {
    if (counted !== undefined) deps.streamCounts.ended(counted, 'error');
    // Past hijack() Fastify's error handler cannot answer any more: the stream says it instead.
    request.log.error({ err: error }, 'stream failed');
    stream.send({ type: 'error', message: `Internal error; quote request id ${request.id} when reporting it.` });
    stream.close();
  }
}
