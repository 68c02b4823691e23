import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { snapshotOf } from '../ipinfo/answers/ip-answers.ts';
import type { IpInfoServices } from '../ipinfo/services.ts';
import { BEACON_PATH, beaconRouteSchema, resolverRouteSchema, TOKEN_HINT } from './schema.ts';
import type { ResolverTest } from './service.ts';
import { parseTokenLabel, type TokenRecord } from './tokens.ts';

export interface ResolverPluginOptions {
  /** null when RESOLVER_TEST_ZONE is not set. */
  test: ResolverTest | null;
  ip: IpInfoServices;
}

/** GET /api/v1/resolver/{token}, and the beacon the test's names are fetched at. */
export const resolverPlugin: FastifyPluginAsyncTypebox<ResolverPluginOptions> = async (app, { test, ip }) => {
  app.get(
    '/api/v1/resolver/:token',
    {
      schema: resolverRouteSchema,
      config: {
        parameterHints: { token: TOKEN_HINT },
        agentTool: {
          none: "a test's token is made by a browser whose resolver looks up the test's names (/tools/resolver)",
        },
      },
    },
    async (request, reply) => {
      if (test === null) throw apiErrors.resolverTestOff();
      const record = await test.tokens.read(request.params.token);
      if (record === undefined) throw apiErrors.unknownResolverToken();
      reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
      return describeRecord(record, ip, test.dsPublished);
    },
  );

  // Fetched by the page (mode 'no-cors') at each name of a test: only its arrival matters.
  app.get(BEACON_PATH, { schema: beaconRouteSchema }, async (request, reply) => {
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const zone = test?.zone;
    if (zone !== undefined && host.endsWith(`.${zone}`)) {
      const label = host.slice(0, -zone.length - 1);
      const name = label.includes('.') ? null : parseTokenLabel(label);
      if (name !== null) await test?.tokens.sawBeacon(name.token, name.name);
    }
    return reply.code(204).header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL).send();
  });
};

async function describeRecord(record: TokenRecord, ip: IpInfoServices, dsPublished: boolean) {
  const data = await snapshotOf(ip.store);
  const resolvers = await Promise.all(
    record.resolvers.map(async (sighting) => {
      const { answer } = await ip.answers.complete(sighting.ip, data);
      return {
        ip: sighting.ip,
        ecs: sighting.ecs,
        asn: answer.network?.asn ?? null,
        provider: answer.network?.provider ?? null,
        country: answer.location?.country ?? null,
        city: answer.location?.city ?? null,
        hostname: answer.hostname ?? null,
        seen: new Date(sighting.seen).toISOString(),
      };
    }),
  );
  const signed = record.beacons.includes('ok');
  const broken = record.beacons.includes('bad');
  const validating = !dsPublished ? null : signed && !broken ? true : signed && broken ? false : null;
  return {
    resolvers,
    dnssec: { validating, signed, broken, ds_published: dsPublished },
    expires: new Date(record.expiresAt).toISOString(),
  };
}
