import type { FastifyInstance } from 'fastify';
import type { TtlCache } from '../cache/ttl-cache.ts';
import { workerLink } from '../workers/link.ts';
import { dsText, loadOrCreateZoneKey } from './dnssec.ts';
import { type DnsListener, startDnsListener } from './listener.ts';
import { createTokenLog, type TokenLog, type TokenRecord } from './tokens.ts';
import { answerQuery, type ZoneSettings } from './zone.ts';

export interface ResolverTestConfig {
  readonly resolverTestZone: string | null;
  readonly resolverTestDnsPort: number;
  readonly resolverTestDnsHost: string;
  readonly resolverTestAddresses: readonly string[];
  readonly resolverTestTokenMinutes: number;
  readonly resolverTestDsPublished: boolean;
  readonly dataDir: string;
}

export interface ResolverTest {
  readonly zone: string;
  /** The operator says the zone's DS is in its parent: only then can a broken name tell anything. */
  readonly dsPublished: boolean;
  readonly tokens: TokenLog;
}

/** Tokens kept at once: queries for random names cannot grow memory past this. */
const MAX_TOKENS = 10_000;

/**
 * The zone's listener and what it saw; null when RESOLVER_TEST_ZONE is not set. The listener opens
 * when the app is ready (a port it cannot bind stops the start) and closes with it.
 */
export function createResolverTest(
  app: FastifyInstance,
  config: ResolverTestConfig,
  deps: { cache: (maxEntries: number) => TtlCache<TokenRecord>; now: () => number },
): ResolverTest | null {
  const zone = config.resolverTestZone;
  if (zone === null) return null;
  const tokens = createTokenLog(deps.cache(MAX_TOKENS), config.resolverTestTokenMinutes * 60_000, deps.now);
  let listener: DnsListener | undefined;
  app.addHook('onReady', async () => {
    const key = loadOrCreateZoneKey(config.dataDir);
    const settings: ZoneSettings = { zone, addresses: config.resolverTestAddresses, key };
    const handle = (query: Buffer, peer: string, tcp: boolean) => {
      const answer = answerQuery(query, peer, tcp, settings, deps.now());
      if (answer.token !== undefined) {
        const sighting = { ip: peer, ecs: answer.ecs, seen: deps.now() };
        tokens.sawResolver(answer.token.token, sighting).catch((error: Error) => {
          app.log.warn({ err: { message: error.message } }, 'resolver test: a sighting was not stored');
        });
      }
      return answer.response;
    };
    const { resolverTestDnsHost: host, resolverTestDnsPort: port } = config;
    const shared = workerLink() !== null;
    try {
      listener = await startDnsListener(host, port, handle, shared);
    } catch (error) {
      // As the HTTP server does (server.ts): a machine without IPv6 cannot bind `::`.
      if (host !== '::' || (error as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw error;
      app.log.warn('IPv6 is unavailable on this machine; the resolver test listens on 0.0.0.0 (IPv4 only)');
      listener = await startDnsListener('0.0.0.0', port, handle, shared);
    }
    app.log.info(
      { ds: dsText(zone, key), port },
      `resolver test: answering DNS for ${zone}; publish this DS in the parent zone`,
    );
  });
  app.addHook('onClose', async () => listener?.close());
  return { zone, tokens, dsPublished: config.resolverTestDsPublished };
}
