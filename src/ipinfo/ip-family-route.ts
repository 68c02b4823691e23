import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  CALLER_SPECIFIC_CACHE_CONTROL,
  callerSpecificHeaders,
  commonErrorResponses,
  okResponse,
} from '../http/schemas.ts';
import { dottedQuadValue } from '../net/ip-address.ts';

export const IpFamily = Type.Object(
  {
    ip: Type.String({ description: 'The client IP address (IPv4-mapped IPv6 is reported as IPv4).' }),
    is_ipv4: Type.Boolean({ description: 'True if the client connects over IPv4.' }),
    is_ipv6: Type.Boolean({ description: 'True if the client connects over native IPv6.' }),
    protocol: Type.Union([Type.Literal('IPv4'), Type.Literal('IPv6')]),
    timestamp: Type.String({ description: 'UTC time of the answer, `YYYY-MM-DDThh:mm:ssZ`.' }),
  },
  { additionalProperties: false },
);

/** `YYYY-MM-DDThh:mm:ssZ`; the text changes once a second, so the last one is kept. */
let lastSecond = Number.NaN;
let lastTimestamp = '';
export function utcTimestamp(nowMs: number): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastTimestamp;
}

/** What /api/v1/ipv6 says about a client address at a moment. */
export function describeIpFamily(ip: string, nowMs: number) {
  // `ip` is a normalised client address (http/client-ip.ts): IPv4 is a plain dotted quad.
  const v4 = dottedQuadValue(ip) >= 0;
  return {
    ip,
    is_ipv4: v4,
    is_ipv6: !v4,
    protocol: v4 ? ('IPv4' as const) : ('IPv6' as const),
    timestamp: utcTimestamp(nowMs),
  };
}

export function registerIpFamilyRoute(app: FastifyInstance, now: () => number): void {
  const ok = okResponse(IpFamily, 'The client address and its family.');
  const familyOk = { ...ok, headers: { ...ok.headers, ...callerSpecificHeaders } };
  app.get(
    '/api/v1/ipv6',
    {
      schema: {
        summary: 'Does the client connect over IPv4 or IPv6?',
        tags: ['ip'],
        response: { 200: familyOk, ...commonErrorResponses },
      },
    },
    // Sent at once rather than returned from an async function: no promise on the hottest route.
    (request, reply) => {
      reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL).send(describeIpFamily(request.clientIp, now()));
    },
  );
}
