import Fastify, { type FastifyInstance } from 'fastify';
import { ABUSE_CACHE_ENTRIES, ABUSE_TOOL } from './abuse/config.ts';
import { abusePlugin } from './abuse/plugin.ts';
import { type AbuseFinding, abuseTimeLimitMs, createAbuseService } from './abuse/service.ts';
import { isSecureRequest, requestFacts } from './accounts/account-http.ts';
import { ACCOUNT_PREFIX } from './accounts/account-paths.ts';
import { createAccounts } from './accounts/accounts.ts';
import { accountPlugin } from './accounts/plugin.ts';
import { requestHost } from './accounts/session-cookie.ts';
import type { AppDeps } from './app-deps.ts';
import { createBlacklistChecker } from './blacklist/checker.ts';
import { blacklistPlugin } from './blacklist/plugin.ts';
import type { Config } from './config.ts';
import { noDnsCache } from './dns/cache.ts';
import { dnsPlugin } from './dns/plugin.ts';
import { createResolver } from './dns/resolver.ts';
import { createSocketTransport } from './dns/transport.ts';
import { healthPlugin } from './health/plugin.ts';
import { createReadiness, type Readiness } from './health/readiness.ts';
import { COMPRESSION_THRESHOLD_BYTES, registerCompression } from './http/compression.ts';
import { registerPlainTextEscaping } from './http/control-characters.ts';
import { registerCors } from './http/cors.ts';
import { answerConnect, refuseOverlongUrls, registerErrorHandling } from './http/error-handler.ts';
import { createServiceLogger, registerAccessLog } from './http/logging.ts';
import { openApiDocumentPlugin, registerOpenApi } from './http/openapi.ts';
import { closeQueryStrings } from './http/query-params.ts';
import { registerRequestContext } from './http/request-context.ts';
import { createRouteCatalogue } from './http/route-catalogue.ts';
import { registerAnswerConstraint } from './http/route-config.ts';
import { serverOptions } from './http/server-options.ts';
import { createHttpChecker } from './httpcheck/checker.ts';
import { httpCheckPlugin } from './httpcheck/plugin.ts';
import { HTTP_CHECK_TOOL } from './httpcheck/tool.ts';
import { snapshotOf, vrpSetAge } from './ipinfo/answers/ip-answers.ts';
import { ipInfoPlugin } from './ipinfo/plugin.ts';
import { createIpInfoServices } from './ipinfo/services.ts';
import { createInternalRequests } from './limits/internal-request.ts';
import { createRateLimiter } from './limits/limiter.ts';
import { registerRateLimiting } from './limits/rate-limit-hook.ts';
import { createUpstreamCaps } from './limits/upstream-caps.ts';
import { createUpstreamCharges } from './limits/upstream-cost.ts';
import { createMailChecker } from './mail/checker.ts';
import { mailPlugin } from './mail/plugin.ts';
import { MAIL_TOOL } from './mail/tool.ts';
import { mcpPlugin } from './mcp/plugin.ts';
import { buildMesh } from './mesh/build.ts';
import { meshPlugin } from './mesh/plugin.ts';
import {
  countedDnsCache,
  countedTtlCache,
  timedDnsblResolver,
  timedDnsTransport,
  timedTlsChecker,
} from './metrics/instrument.ts';
import { startMetrics } from './metrics/setup.ts';
import { buildMonitors } from './monitors/build.ts';
import { monitorsPlugin } from './monitors/plugin.ts';
import { monitorWebhooks } from './monitors/schema.ts';
import { createPortChecker } from './port/checker.ts';
import { portPlugin } from './port/plugin.ts';
import { PORT_CHECK_TIMEOUT_MS, PORT_CHECK_TOOL } from './port/tool.ts';
import { mtrPlugin } from './probes/mtr/plugin.ts';
import { pingPlugin } from './probes/ping/plugin.ts';
import { createProbeRouteDeps } from './probes/stream/deps.ts';
import { createStreamSlots } from './probes/stream/slots.ts';
import { traceroutePlugin } from './probes/traceroute/plugin.ts';
import { resolverPlugin } from './resolver/plugin.ts';
import { createResolverTest } from './resolver/service.ts';
import { rpkiPlugin } from './rpki/plugin.ts';
import { createSharedState } from './scale/shared-state.ts';
import { openRepository } from './storage/open.ts';
import { textPlugin } from './text/plugin.ts';
import { createTlsChecker } from './tls/inspect.ts';
import { sslPlugin } from './tls/plugin.ts';
import { SSL_TOOL } from './tls/tool.ts';
import { upstreamDemands } from './upstream-demands.ts';
import { DASHBOARD_PATH, dashboardPlugin } from './web/dashboard-plugin.ts';
import { createAssetStore } from './web/site/assets.ts';
import { registerSite } from './web/site/routes.ts';
import { buildRdapAccess, buildWhoisService } from './whois/build.ts';
import { whoisPlugin } from './whois/plugin.ts';
import type { WhoisResult } from './whois/service.ts';
import { WHOIS_TOOL, whoisTimeLimitMs } from './whois/tool.ts';

export type { AppDeps } from './app-deps.ts';

export const API_PREFIX = '/api/v1';

declare module 'fastify' {
  interface FastifyInstance {
    /** Aborted when the server starts closing, so long-lived streams end promptly. */
    shutdownSignal: AbortSignal;
    readiness: Readiness;
  }
}

/** The composition root: builds every service from config and wires it into one Fastify app. */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  const logger = createServiceLogger(config.logLevel, deps.logStream);
  const { metrics, attach: attachMetrics } = await startMetrics(config, now);
  const app = Fastify(serverOptions(config.requestTimeoutMs, logger));
  app.log = logger;
  const routes = createRouteCatalogue(app);
  attachMetrics(app);
  app.server.on('connect', answerConnect(logger));
  registerAccessLog(app, logger);

  const shutdown = new AbortController();
  app.decorate('shutdownSignal', shutdown.signal);
  app.decorate('readiness', createReadiness());
  app.addHook('preClose', async () => shutdown.abort());

  registerErrorHandling(app);
  registerPlainTextEscaping(app);
  closeQueryStrings(app);
  registerCompression(app, {
    threshold: COMPRESSION_THRESHOLD_BYTES,
    uncompressed: (url) => url === DASHBOARD_PATH || url === ACCOUNT_PREFIX || url.startsWith(`${ACCOUNT_PREFIX}/`),
  });
  await registerOpenApi(app, monitorWebhooks);
  registerRequestContext(app, config.trustProxy);
  registerCors(app);
  registerAnswerConstraint(app);
  refuseOverlongUrls(app);

  // Shared state: in this process, or in Redis for several instances (REDIS_URL).
  const shared = await createSharedState(config, app, now);
  const store = deps.rateLimitStore ?? shared.rateLimitStore;
  app.addHook('onClose', async () => store.close());
  // DATABASE_URL's database, migrated (an unreachable PostgreSQL is waited for: storage/postgres-connection.ts).
  const accountRepository =
    deps.accountRepository ??
    (await openRepository(config.database, config.dataDir, {
      onError: (error) => app.log.error({ err: { message: error.message } }, 'account database connection error'),
      onWarning: (message) => app.log.warn(message),
      // Requests without a key do not need the accounts: the service starts while PostgreSQL is down.
      waitForServer: true,
    }));
  const accounts = await createAccounts(app, config, {
    now,
    store,
    repository: accountRepository,
    ownerChanges: shared.ownerChanges,
    onKeyCache: (hit) => metrics.cache('key', hit),
  });
  const charges = createUpstreamCharges({ store, limits: config.rateLimits, now });
  const internalRequests = createInternalRequests();
  registerRateLimiting(app, {
    limiter: createRateLimiter({ store, limits: config.rateLimits, now }),
    callers: deps.callers ?? accounts.callers,
    prefix: API_PREFIX,
    exclude: [ACCOUNT_PREFIX],
    onRefused: (tier) => metrics.rateLimited(tier),
    exempt: internalRequests.is,
  });
  metrics.watchRedisFallback(() => app.readiness.report().checks.redis?.state === 'degraded');

  const resolver =
    deps.resolver ??
    createResolver({
      servers: config.dnsServers,
      timeoutMs: config.dnsTimeoutMs,
      deadlineMs: config.dnsTimeoutMs * 3,
      cache: countedDnsCache(
        config.dnsCacheEntries === 0 ? noDnsCache : shared.dnsCache(config.dnsCacheEntries),
        metrics,
      ),
      transport: timedDnsTransport(createSocketTransport(), metrics),
    });

  const inFlightCap = createUpstreamCaps(upstreamDemands(config), {
    openFilesLimit: deps.openFilesLimit,
    fdReserve: config.fdReserve,
    now,
    log: app.log,
    slots: createStreamSlots,
  });

  // One RDAP bootstrap store and one policy-checked GET for /whois and the abuse contacts.
  const rdap = buildRdapAccess(config, {
    resolver,
    now,
    log: app.log,
    onUpstream: (upstream, outcome, seconds) => metrics.upstream(upstream, outcome, seconds),
    rdapPorts: deps.rdapPorts,
    trustedCertificates: deps.trustedCertificates,
    bootstrapSnapshot: deps.rdapBootstrap,
  });
  const abuse = createAbuseService({
    rdap,
    cache: countedTtlCache(shared.ttlCache<AbuseFinding>('abuse', ABUSE_CACHE_ENTRIES), 'abuse', metrics),
    cacheSeconds: config.abuseCacheHours * 3600,
    cap: inFlightCap('abuse', ABUSE_TOOL.calls, abuseTimeLimitMs(config.whoisTimeoutMs)),
    now,
  });
  const ipInfo = createIpInfoServices(app, config, {
    abuse,
    resolver,
    store: deps.ipData,
    onAnswerCache: (hit) => metrics.cache('json', hit),
    onDataDownload: (outcome, seconds) => metrics.upstream('data_download', outcome, seconds),
  });
  metrics.watchDataSources(() => ipInfo.store.current?.sources ?? []);

  // Capabilities: one plugin each, loaded in this order when the app is ready.
  app.register(healthPlugin, { readiness: app.readiness });
  app.register(ipInfoPlugin, { services: ipInfo, now });
  app.register(rpkiPlugin, { vrps: async () => (await snapshotOf(ipInfo.store))?.rpki });
  app.register(textPlugin, { ip: ipInfo });
  app.register(dnsPlugin, { resolver });
  app.register(resolverPlugin, {
    test: createResolverTest(app, config, { cache: (max) => shared.ttlCache('resolver-test', max), now }),
    ip: ipInfo,
  });
  app.register(blacklistPlugin, {
    checker: createBlacklistChecker({
      resolver: timedDnsblResolver(resolver, metrics),
      lists: config.dnsblZones,
      timeoutMs: config.dnsblTimeoutMs,
      cache: countedTtlCache(shared.ttlCache('dnsbl', 10_000), 'dnsbl', metrics),
      cacheSeconds: config.dnsblCacheSeconds,
    }),
    charges,
  });
  // Probes: the deps they share are made once (one set of stream caps), then one line per tool.
  const probes = createProbeRouteDeps(app, config, {
    resolver,
    now,
    spawner: deps.spawner,
    slots: shared.streamSlots({
      maxConcurrent: config.streamMaxConcurrent,
      maxPerClient: config.streamMaxPerClient,
      leaseMs: config.streamSlotLeaseSeconds * 1000,
    }),
    streamCounts: {
      started: (tool) => metrics.streamStarted(tool),
      ended: (tool, end) => metrics.streamEnded(tool, end),
    },
  });
  app.register(pingPlugin, { probes });
  app.register(traceroutePlugin, { probes, hostnameWaitMs: config.tracerouteHostnameWaitMs });
  app.register(mtrPlugin, { probes, hostnameWaitMs: config.tracerouteHostnameWaitMs });
  app.register(whoisPlugin, {
    whois: buildWhoisService(config, {
      resolver,
      now,
      rdap,
      cache: countedTtlCache(shared.ttlCache<WhoisResult>('whois', config.whoisCacheEntries), 'whois', metrics),
      onUpstream: (upstream, outcome, seconds) => metrics.upstream(upstream, outcome, seconds),
      referralPort: deps.whoisReferralPort,
    }),
    cap: inFlightCap('whois', WHOIS_TOOL.calls, whoisTimeLimitMs(config.whoisTimeoutMs)),
  });
  app.register(abusePlugin, { abuse });
  app.register(mailPlugin, {
    checker: createMailChecker(resolver),
    cap: inFlightCap('mail', MAIL_TOOL.calls, MAIL_TOOL.timeLimitMs),
    charges,
  });
  const reach = { resolver, now, policy: config.allowPrivateTargets, trustedCertificates: deps.trustedCertificates };
  const tlsChecker = createTlsChecker({ ...reach, port: config.tlsCheckPort, timeoutMs: config.tlsTimeoutMs });
  app.register(sslPlugin, {
    checker: timedTlsChecker(tlsChecker, metrics),
    cap: inFlightCap('ssl', SSL_TOOL.calls, config.tlsTimeoutMs),
  });
  const ports = config.httpCheckPorts;
  app.register(httpCheckPlugin, {
    checker: createHttpChecker({
      ...reach,
      ports,
      timeoutMs: config.httpCheckTimeoutMs,
      maxBodyBytes: config.httpCheckMaxBodyBytes,
    }),
    ports,
    cap: inFlightCap('http', HTTP_CHECK_TOOL.calls, config.httpCheckTimeoutMs),
  });
  app.register(portPlugin, {
    checker: createPortChecker(config.allowPrivateTargets),
    cap: inFlightCap('port', PORT_CHECK_TOOL.calls, PORT_CHECK_TIMEOUT_MS),
  });
  // Measurements from many nodes: each probe runs as a request to the single-node route above.
  const mesh = await buildMesh(app, config, {
    meshStore: shared.meshStore,
    shared: config.redisUrl !== null,
    ipData: ipInfo.store,
    internal: internalRequests,
    httpPorts: config.httpCheckPorts,
    now,
  });
  app.register(meshPlugin, { mesh, sweepMs: (config.nodeHeartbeatSeconds * 1000) / 2 });
  // Monitors: checks on a schedule, run as measurements, with history and notifications.
  const monitors = await buildMonitors(app, config, {
    accounts,
    mesh,
    resolver,
    trustedCertificates: deps.trustedCertificates,
    repository: deps.monitorRepository,
    now,
  });
  app.register(monitorsPlugin, { service: monitors, accounts });
  app.register(accountPlugin, { accounts });
  const siteAssets = createAssetStore();
  app.register(dashboardPlugin, { accounts, site: siteAssets, routes });
  registerSite(app, config, { assets: siteAssets, routes, vrpSetAge: () => vrpSetAge(ipInfo.store, now()) });
  // The API's routes as MCP tools for AI agents, derived from the routes' schemas.
  app.register(mcpPlugin, {
    routes,
    internal: internalRequests,
    cancellations: shared.toolCancellations,
    onToolCall: (tool, outcome) => metrics.toolCall(tool, outcome),
  });
  app.register(openApiDocumentPlugin, {
    origin: (request) => ({
      host: requestHost(requestFacts(request), config.trustProxy),
      secure: isSecureRequest(accounts, request),
    }),
  });
  return app;
}
