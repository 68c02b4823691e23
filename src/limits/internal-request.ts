import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Caller } from './caller.ts';
import { TIERS, type Tier } from './tiers.ts';

const HEADER = 'x-netinfo-internal';
const CALLER_HEADER = 'x-netinfo-internal-caller';

export interface InternalRequests {
  /** Headers that mark an in-process request (app.inject) as the service's own, made for `caller` when given. */
  headers(caller?: Caller): Readonly<Record<string, string>>;
  /**
   * True for the service's own requests; one made for a caller gets that caller as `request.caller`,
   * so per-caller caps (streams, in-flight checks) count the account, not the service's address.
   */
  is(request: FastifyRequest): boolean;
}

/**
 * A request the service makes to its own route in this process (a mesh probe, whose caller was
 * counted on the node that took the measurement; a monitor's run), told apart by a header holding a
 * random value that never leaves the process: a client cannot guess it, and a client's copy of the
 * header is simply wrong.
 */
export function createInternalRequests(): InternalRequests {
  const token = randomBytes(24).toString('hex');
  return {
    headers(caller) {
      const headers: Record<string, string> = { [HEADER]: token };
      if (caller) headers[CALLER_HEADER] = `${caller.tier} ${caller.subject}`;
      return headers;
    },
    is(request) {
      if (request.headers[HEADER] !== token) return false;
      const named = request.headers[CALLER_HEADER];
      if (typeof named === 'string') {
        const [tier, subject] = named.split(' ', 2);
        if ((TIERS as readonly string[]).includes(tier ?? '') && subject)
          request.caller = { tier: tier as Tier, subject };
      }
      return true;
    },
  };
}
