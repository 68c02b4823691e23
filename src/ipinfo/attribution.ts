import type { FastifyReply } from 'fastify';
import type { IpData } from './data/ip-data.ts';

/**
 * The credit the licences of the IP data ask for (GeoLite2's CC BY-SA, DB-IP's CC BY), sent with
 * every answer built from that data: /api/v1/json, /api/v1/asn, /api/v1/batch and the text face.
 */
export const ATTRIBUTION_HEADER = 'x-data-attribution';

export const attributionResponseHeader = {
  'X-Data-Attribution': {
    type: 'string',
    description: 'Credit the licences of the data behind this answer ask for; absent when the loaded data asks none.',
  },
} as const;

export function creditData(reply: FastifyReply, data: IpData | undefined): void {
  // Readable by browser scripts: the CORS headers expose it (http/cors.ts).
  if (data !== undefined && data.attribution !== '') reply.header(ATTRIBUTION_HEADER, data.attribution);
}

export function withAttribution<T extends { headers: object }>(response: T): T {
  return { ...response, headers: { ...response.headers, ...attributionResponseHeader } };
}
