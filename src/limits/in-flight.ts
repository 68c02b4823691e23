import type { FastifyRequest } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { publicCaller } from './caller.ts';

/**
 * The in-flight caps of the capabilities that hold upstream sockets while they run (/ssl, /http,
 * /mail, /whois): a slot per running call, per caller and for all callers, taken before any work
 * and given back when the call ends. The mechanism is the streams' (`probes/stream/slots.ts`'s
 * `createStreamSlots`, handed in by the composition root, so this folder does not import that one):
 * its in-process twin fits as it is, since these caps are per process (issue 28, item 9).
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

export interface InFlightCap {
  /** What the 429 names: `/ssl checks`, `WHOIS lookups`. */
  what: string;
  slots: InFlightSlots;
  /** The longest one call may hold its slot (its time limit), for the 429's `reset`. */
  holdMs: number;
  now: () => number;
}

/**
 * Runs `call` inside a slot of `cap` for the request's caller (counted like the rate limits: per
 * IPv4 address, IPv6 /64 or account), or throws the catalogue's 429 naming the cap that is full.
 */
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

/** The schema sentence of a capped route, written once for the four (`variable`: `TLS`, `WHOIS`...). */
export function inFlightCapText(variable: string): string {
  return `At most ${variable}_MAX_IN_FLIGHT_PER_CLIENT calls of one caller (per IPv4 address, IPv6 /64 or account) and ${variable}_MAX_IN_FLIGHT in all run at once (both lowered at start if their sockets would not fit the open-files limit minus FD_RESERVE); and, as with the streams, a caller's own cap shrinks as the server fills (free slots × per-client cap must exceed what it holds × the cap in all), so callers with none still get a slot. One more is answered 429 \`too_many_in_flight\`, whose message says which cap is full and whose \`reset\` is when a slot is free at the latest.`;
}
