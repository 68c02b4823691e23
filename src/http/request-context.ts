import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { createGenerationalMap } from '../cache/generational-map.ts';
import { resolveClientIp } from './client-ip.ts';
import type { TrustProxy } from './trust-proxy.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Resolved once per request. */
    clientIp: string;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Ids are this process's random prefix and a counter: unique across processes and restarts
// without paying for a random UUID on every request.
const processPrefix = randomUUID().slice(0, 8);
let counter = 0;

/** The caller's X-Request-Id when it is short and plain (safe to log and echo), else a new id. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && SANE_REQUEST_ID.test(given)) return given;
  return newRequestId();
}

export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${processPrefix}-${counter.toString(36)}`;
}

const knownAddresses = createGenerationalMap<string, string>(20_000);

/**
 * The same string object for the same address, request after request. The per-address maps behind
 * it (rate-limit counters, public callers, /api/v1/json's answers) then find their key by identity,
 * its hash already computed; a fresh string cut from a header or the socket is hashed anew and
 * compared character by character in each of them. One such lookup here instead of one per map:
 * measured with the public-caller maps (limits/caller.ts), about 5% of /api/v1/json's CPU per
 * request (docs/performance.md).
 */
function canonicalAddress(ip: string): string {
  const known = knownAddresses.get(ip);
  if (known !== undefined) return known;
  knownAddresses.set(ip, ip);
  return ip;
}

/** Resolves the client IP and echoes the request id before any other hook runs. */
export function registerRequestContext(app: FastifyInstance, trust: TrustProxy): void {
  app.decorateRequest('clientIp', '');
  // A callback hook, not an async one: it runs on every request and needs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    request.clientIp = canonicalAddress(resolveClientIp(request.socket.remoteAddress ?? '', request.headers, trust));
    done();
  });
}
