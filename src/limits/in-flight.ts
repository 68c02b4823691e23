import type { FastifyRequest } from 'fastify';
import { type ConfigVariable, integerIn } from '../config-values.ts';
import { apiErrors } from '../http/errors.ts';
import { publicCaller } from './caller.ts';

/**
 * The in-flight caps of the capabilities that hold upstream sockets while they run. The slots are
 * the streams' (`probes/stream/slots.ts`, handed in by the composition root so this folder does not
 * import that one): their in-process twin fits as it is, since these caps are per process.
 */
export interface InFlightSlots {
  acquire(client: string, holdUntilMs: number): InFlightGrant | InFlightRefusal;
}

export interface InFlightGrant {
  ok: true;
  release(): void;
}

export interface InFlightRefusal {
  ok: false;
  /** `share`: the caller holds its fair share of what is free on a busy server (the streams' rule). */
  scope: 'client' | 'server' | 'share';
  limit: number;
  /** Epoch ms by which a slot of that scope is free at the latest. */
  freeByMs: number;
}

/** A capped capability, named once for its 429, its schema and its config variables. */
export interface CappedTool {
  /** Its calls as the 429 names them: `/ssl checks`. */
  readonly calls: string;
  /** The prefix of its config variables: `TLS` for TLS_MAX_IN_FLIGHT and TLS_MAX_IN_FLIGHT_PER_CLIENT. */
  readonly variable: string;
  /** The most descriptors one call holds at once: the caps are fitted under the open-files limit by it. */
  readonly socketsPerCall: number;
}

export interface InFlightCap {
  what: string;
  slots: InFlightSlots;
  /** The longest one call may hold its slot (its time limit), for the 429's `reset`. */
  holdMs: number;
  now: () => number;
}

export async function withinInFlightCap<T>(
  cap: InFlightCap,
  request: FastifyRequest,
  call: () => Promise<T>,
): Promise<T> {
  const client = request.caller?.subject ?? publicCaller(request.clientIp).subject;
  const now = cap.now();
  const slot = cap.slots.acquire(client, now + cap.holdMs);
  if (!slot.ok) throw apiErrors.tooManyInFlight(cap.what, slot.scope, slot.limit, Math.ceil(slot.freeByMs / 1000), now);
  try {
    return await call();
  } finally {
    slot.release();
  }
}

export function inFlightCapText({ variable }: CappedTool): string {
  return `At most ${variable}_MAX_IN_FLIGHT_PER_CLIENT calls of one caller (per IPv4 address, IPv6 /64 or account) and ${variable}_MAX_IN_FLIGHT in all run at once (both lowered at start if their sockets would not fit the open-files limit minus FD_RESERVE); and, as with the streams, a caller's own cap shrinks as the server fills (free slots × per-client cap must exceed what it holds × the cap in all), so callers with none still get a slot. One more is answered 429 \`too_many_in_flight\`, whose message says which cap is full and whose \`reset\` is when a slot is free at the latest.`;
}

/** A capped tool's two config variables: its cap in all, and per caller. */
export function inFlightConfigVariables(tool: CappedTool, defaults: { all: number; perClient: number }) {
  return {
    all: {
      name: `${tool.variable}_MAX_IN_FLIGHT`,
      defaultText: String(defaults.all),
      description: `${tool.calls} running at the same time, all callers together; one more is answered 429 (lowered at start when their sockets would not fit the open-files limit minus FD_RESERVE).`,
      parse: integerIn(1, 100_000, defaults.all),
    },
    perClient: {
      name: `${tool.variable}_MAX_IN_FLIGHT_PER_CLIENT`,
      defaultText: String(defaults.perClient),
      description: `${tool.calls} one caller may have running at the same time (counted like the rate limits: per IPv4 address, IPv6 /64 or account); one more is answered 429.`,
      parse: integerIn(1, 100_000, defaults.perClient),
    },
  } satisfies Record<string, ConfigVariable<number>>;
}
