import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  CALLER_SPECIFIC_CACHE_CONTROL,
  callerSpecificHeaders,
  commonErrorResponses,
  okResponse,
} from '../http/schemas.ts';
import { createAnswerCache } from './answer-cache.ts';
import { describeIp } from './describe-ip.ts';
import type { HostnameLookup } from './hostname.ts';
import type { IpData } from './ip-data.ts';
import type { IpDataStore } from './ip-data-store.ts';
import { IpInfoBody } from './json-schema.ts';

const ATTRIBUTION_HEADER = 'x-data-attribution';
const JSON_TYPE = 'application/json; charset=utf-8';
/** How long an answer is reused for the same address (and so how stale a reverse name may be). */
const ANSWER_TTL_MS = 60_000;

const DESCRIPTION = `Geolocation, network, kind, class, reverse name and security indicators of the caller's own IP
address (see "The caller's IP" for proxies). Fields whose data is missing are omitted, never guessed.

Data: a City database (MaxMind GeoLite2 City shipped with the service, DB-IP City Lite or GeoLite2 after
\`npm run data:update\`, or the operator's own GEOIP_CITY_DB), ASN data (ip-location-db's RouteViews + RIR +
DB-IP ASN Lite compilation, DB-IP ASN Lite or GeoLite2 ASN, or GEOIP_ASN_DB), and security feeds (the Tor
Project's exit list, X4BNet's VPN and datacenter lists, an optional GeoIP2 Anonymous IP database). New data
is swapped in while the service runs; one answer always comes from one consistent set.

Attribution: the \`X-Data-Attribution\` header names the sources whose licences ask for credit, e.g.
"GeoLite2 data created by MaxMind, available from https://www.maxmind.com" and "IP Geolocation by DB-IP
(https://db-ip.com)". A page that shows these answers should show that credit (DB-IP asks for a link).`;

export function registerJsonRoute(app: FastifyInstance, store: IpDataStore, lookupHostname: HostnameLookup): void {
  const answers = createAnswerCache<IpData>({ maxEntries: 20_000, ttlMs: ANSWER_TTL_MS });
  const ok = okResponse(IpInfoBody, 'What the service knows about the caller’s address.');
  app.get(
    '/api/v1/json',
    {
      schema: {
        summary: 'IP information about the caller: location, network, type, class, hostname, security',
        description: DESCRIPTION,
        tags: ['ip'],
        response: {
          200: {
            ...ok,
            headers: {
              ...ok.headers,
              ...callerSpecificHeaders,
              'X-Data-Attribution': {
                type: 'string',
                description: 'Credit the licences of the data behind this answer ask for.',
              },
            },
          },
          ...commonErrorResponses,
        },
      },
    },
    (request, reply) => {
      // One snapshot for the whole request: every lookup below reads the same data.
      const data = store.current;
      if (data === undefined) {
        return store.loaded().then(
          (loaded) => answer(request.clientIp, loaded, reply),
          () => answer(request.clientIp, undefined, reply),
        );
      }
      // A repeat is answered synchronously: no promise on the hot path.
      return answer(request.clientIp, data, reply);
    },
  );

  // Answers being made, by address: requests for an address that arrive while its answer is being
  // made (its reverse lookup in flight) wait for that answer instead of making it again. Without
  // this, 50 clients behind one address each did the lookups and serialisation the first time, and
  // again every time the cached answer expired.
  const making = new Map<string, { data: IpData | undefined; body: Promise<string> }>();

  function answer(ip: string, data: IpData | undefined, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    if (data !== undefined && data.attribution !== '') {
      // Readable by browser scripts: the CORS headers expose it (http/cors.ts).
      reply.header(ATTRIBUTION_HEADER, data.attribution);
    }
    reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
    reply.type(JSON_TYPE);
    const body = bodyFor(ip, data, reply);
    return typeof body === 'string' ? reply.send(body) : body.then((json) => reply.send(json));
  }

  function bodyFor(ip: string, data: IpData | undefined, reply: FastifyReply): string | Promise<string> {
    const cached = answers.get(ip, data);
    if (cached !== undefined) return cached;
    const inProgress = making.get(ip);
    if (inProgress !== undefined && inProgress.data === data) return inProgress.body;
    const description = describeIp(ip, data);
    if (description.security.bogon) return remember(ip, data, reply, description);
    const body = lookupHostname(description.ip)
      .then((hostname) =>
        remember(ip, data, reply, hostname === undefined ? description : { ...description, hostname }),
      )
      .finally(() => {
        if (making.get(ip)?.body === body) making.delete(ip);
      });
    making.set(ip, { data, body });
    return body;
  }

  function remember(ip: string, data: IpData | undefined, reply: FastifyReply, body: object): string {
    // Serialised by this route's response schema, exactly as a returned object would be.
    const json = reply.serialize(body) as string;
    answers.set(ip, data, json);
    return json;
  }
}
