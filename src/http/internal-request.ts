import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const HEADER = 'x-netinfo-internal';

export interface InternalRequests {
  /** Headers that mark an in-process request (app.inject) as the service's own. */
  readonly headers: Readonly<Record<string, string>>;
  is(request: FastifyRequest): boolean;
}

/**
 * A request the service makes to its own route in this process (a mesh probe, whose caller was
 * counted on the node that took the measurement), told apart by a header holding a random value
 * that never leaves the process: a client cannot guess it, and a client's copy of the header is
 * simply wrong.
 */
export function createInternalRequests(): InternalRequests {
  const token = randomBytes(24).toString('hex');
  return {
    headers: { [HEADER]: token },
    is: (request) => request.headers[HEADER] === token,
  };
}
