import cluster from 'node:cluster';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { isSecureRequest, requestFacts } from './accounts/account-http.ts';
import { ACCOUNT_PREFIX } from './accounts/account-paths.ts';
import { registerAccountRoutes } from './accounts/account-routes.ts';
import { createAccounts } from './accounts/accounts.ts';
import { requestHost } from './accounts/session-cookie.ts';
import { createBlacklistChecker } from './blacklist/checker.ts';
import { registerBlacklistRoute } from './blacklist/route.ts';
import type { Config } from './config.ts';
import { noDnsCache } from './dns/cache.ts';
import { registerDohJsonRoute } from './dns/doh-json-route.ts';
import { createResolver, type Resolver } from './dns/resolver.ts';
import { registerDnsRoute } from './dns/route.ts';
import { createSocketTransport } from './dns/transport.ts';
import { createReadiness, type Readiness } from './health/readiness.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { COMPRESSION_THRESHOLD_BYTES, registerCompression } from './http/compression.ts';
import { registerPlainTextEscaping } from './http/control-characters.ts';
import { registerCors } from './http/cors.ts';
import {
  answerClientError,
  answerConnect,
  answerFrameworkError,
  MAX_PATH_PARAMETER_LENGTH,
  refuseOverlongUrls,
  registerErrorHandling,
} from './http/error-handler.ts';
import { createServiceLogger, registerAccessLog, requestLoggerFactory, ServiceLogController } from './http/logging.ts';
import { registerOpenApi, registerOpenApiRoute } from './http/openapi.ts';
import { closeQueryStrings } from './http/query-params.ts';
import { registerRequestContext, requestIdFor } from './http/request-context.ts';
import { createRouteCatalogue } from './http/route-catalogue.ts';
import { registerAnswerConstraint } from './http/route-config.ts';
import { compilingOncePerSchema } from './http/serializers.ts';
import { strictValidators } from './http/validators.ts';
import { createHttpChecker } from './httpcheck/checker.ts';
import { HTTP_CHECK_SOCKETS_PER_CALL, registerHttpCheckRoute } from './httpcheck/route.ts';
import type { IpDataStore } from './ipinfo/data/ip-data-store.ts';
import { registerIpFamilyRoute } from './ipinfo/ip-family-route.ts';
import { registerIpInfo } from './ipinfo/ip-info.ts';
import type { CallerResolver } from './limits/caller.ts';
import { deriveUpstreamCaps, processOpenFilesLimit } from './limits/descriptors.ts';
import type { InFlightCap } from './limits/in-flight.ts';
import { createRateLimiter } from './limits/limiter.ts';
import { registerRateLimiting } from './limits/rate-limit-hook.ts';
import type { RateLimitStore } from './limits/store.ts';
import { createUpstreamCharges } from './limits/upstream-cost.ts';
import { createMailChecker, MAIL_CHECK_TIME_LIMIT_MS } from './mail/checker.ts';
import { MAIL_SOCKETS_PER_CALL, registerMailRoute } from './mail/route.ts';
import { joinClusterMetrics } from './metrics/cluster.ts';
import { registerHttpMetrics } from './metrics/http-metrics.ts';
import {
  countedDnsCache,
  countedTtlCache,
  timedDnsblResolver,
  timedDnsTransport,
  timedTlsChecker,
} from './metrics/instrument.ts';
import { closeMetricsListener, startMetricsListener } from './metrics/listener.ts';
import { type Metrics, noMetrics } from './metrics/metrics.ts';
import { createPrometheusMetrics } from './metrics/prometheus.ts';
import { registerMtrRoute } from './probes/mtr/route.ts';
import { registerPingRoute } from './probes/ping/route.ts';
import type { Spawner } from './probes/spawn/spawner.ts';
import { createProbeRouteDeps } from './probes/stream/deps.ts';
import { createStreamSlots } from './probes/stream/slots.ts';
import { registerTracerouteRoute } from './probes/traceroute/route.ts';
import { createSharedState } from './scale/shared-state.ts';
import { openRepository } from './storage/open.ts';
import type { AccountRepository } from './storage/repository.ts';
import { registerTextRoutes } from './text/text-routes.ts';
import { createTlsChecker } from './tls/inspect.ts';
import { registerSslRoute, SSL_SOCKETS_PER_CALL } from './tls/route.ts';
import { DASHBOARD_PATH, registerDashboard } from './web/dashboard-routes.ts';
import { createAssetStore } from './web/site/assets.ts';
import { registerSite } from './web/site/routes.ts';
import { buildWhoisService } from './whois/build.ts';
import { registerWhoisRoute, WHOIS_SOCKETS_PER_CALL, whoisHoldMs } from './whois/route.ts';
import type { WhoisResult } from './whois/service.ts';

export const API_PREFIX = '/api/v1';

/** What the composition root builds by default and tests may replace. */
export interface AppDeps {
  now?: () => number;
  rateLimitStore?: RateLimitStore;
  callers?: CallerResolver;
  /** Accounts, sessions and keys (default: SQLite from DATABASE_URL / DATA_DIR). */
  accountRepository?: AccountRepository;
  /** Where log lines go (default stdout); tests capture them here. */
  logStream?: DestinationStream;
  /** The one DNS resolver every capability uses (default: DNS_SERVERS with an in-process cache). */
  resolver?: Resolver;
  /** Starts ping, traceroute and mtr (default: the real tools); tests pass fakes that replay captured output. */
  spawner?: Spawner;
  /** The IP data behind /api/v1/json (default: from config and DATA_DIR, following data:update). */
  ipData?: IpDataStore;
  /** PEM certificates that replace Node's bundled roots for /ssl, RDAP over HTTPS and the HTTP check (tests trust their own CA). */
  trustedCertificates?: readonly string[];
  /** Port asked when a WHOIS referral names none (43); tests run their fake WHOIS servers on another. */
  whoisReferralPort?: number;
  /** Ports RDAP URLs may name (443 and 80); tests run their fake RDAP servers on another. */
  rdapPorts?: readonly number[];
  /** The soft open-files limit the in-flight caps are fitted under (default: /proc/self/limits; null: none known). */
  openFilesLimit?: number | null;
}

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
  // Metrics first: a METRICS_PORT that is taken stops the start before anything else is opened.
  // With METRICS_PORT=0 nothing is counted at all; a worker (WORKERS > 1) counts, and the
  // supervisor's listener sums every worker's registry (server.ts).
  const prometheus = config.metricsPort === 0 ? null : createPrometheusMetrics(now);
  const metrics: Metrics = prometheus?.metrics ?? noMetrics;
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>> | null = null;
  if (prometheus !== null) {
    if (cluster.isWorker) joinClusterMetrics(prometheus.registry);
    else {
      const { registry } = prometheus;
      metricsListener = await startMetricsListener(config, async () => ({
        contentType: registry.contentType,
        body: await registry.metrics(),
      }));
    }
  }
  const app = Fastify({
    // The service's logger is installed below, not handed to Fastify: see http/logging.ts for why.
    logger: false,
    logController: new ServiceLogController(),
    childLoggerFactory: requestLoggerFactory(logger),
    genReqId: requestIdFor,
    requestIdHeader: false,
    return503OnClosing: true,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError(logger),
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    forceCloseConnections: 'idle',
    // A request whose headers or body never finish arriving would otherwise hold its socket for
    // ever (Fastify's default of 0 replaces Node's 300 s). Given to Node's server at construction:
    // Fastify sets `requestTimeout` on the server afterwards, which Node's check does not follow
    // (measured: a 1 s limit set that way answered after 60 s). Node checks open requests every
    // `connectionsCheckingInterval` (30 s by default): at a tenth of the limit, at most every second,
    // a slow request is answered 408 within about 1.1x the limit.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.requestTimeoutMs / 10)),
    },
    schemaController: {
      compilersFactory: { buildSerializer: compilingOncePerSchema(), buildValidator: strictValidators() },
    },
  });
  app.log = logger;
  const routes = createRouteCatalogue(app);
  if (metricsListener !== null) {
    const listener = metricsListener;
    app.addHook('onClose', async () => closeMetricsListener(listener));
  }
  if (prometheus !== null) registerHttpMetrics(app, prometheus);
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
  await registerOpenApi(app);
  registerRequestContext(app, config.trustProxy);
  registerCors(app);
  registerAnswerConstraint(app);
  refuseOverlongUrls(app);

  // Shared state: in this process, or in Redis for several instances (REDIS_URL).
  const shared = await createSharedState(config, app, now);
  const store = deps.rateLimitStore ?? shared.rateLimitStore;
  app.addHook('onClose', async () => store.close());
  // The account database DATABASE_URL names, migrated (a PostgreSQL server that cannot be reached
  // yet is waited for: see storage/postgres-connection.ts); closed with the app by the accounts.
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
  registerRateLimiting(app, {
    limiter: createRateLimiter({ store, limits: config.rateLimits, now }),
    callers: deps.callers ?? accounts.callers,
    prefix: API_PREFIX,
    exclude: [ACCOUNT_PREFIX],
    onRefused: (tier) => metrics.rateLimited(tier),
  });
  metrics.watchRedisFallback(() => app.readiness.report().checks.redis?.state === 'degraded');

  // Shared services every capability receives.
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

  // What holds upstream sockets is capped in flight, the caps fitted under the open-files limit.
  const upstream = deriveUpstreamCaps(
    {
      ssl: {
        maxInFlight: config.tlsMaxInFlight,
        maxPerClient: config.tlsMaxInFlightPerClient,
        socketsPerCall: SSL_SOCKETS_PER_CALL,
      },
      http: {
        maxInFlight: config.httpCheckMaxInFlight,
        maxPerClient: config.httpCheckMaxInFlightPerClient,
        socketsPerCall: HTTP_CHECK_SOCKETS_PER_CALL,
      },
      mail: {
        maxInFlight: config.mailMaxInFlight,
        maxPerClient: config.mailMaxInFlightPerClient,
        socketsPerCall: MAIL_SOCKETS_PER_CALL,
      },
      whois: {
        maxInFlight: config.whoisMaxInFlight,
        maxPerClient: config.whoisMaxInFlightPerClient,
        socketsPerCall: WHOIS_SOCKETS_PER_CALL,
      },
    },
    deps.openFilesLimit === undefined ? processOpenFilesLimit() : deps.openFilesLimit,
    config.fdReserve,
  );
  if (upstream.reduced) {
    app.log.warn(
      { caps: upstream.caps, budget: upstream.budget },
      'in-flight caps lowered to fit the open-files limit minus FD_RESERVE',
    );
  }
  const inFlightCap = (name: keyof typeof upstream.caps, what: string, holdMs: number): InFlightCap => ({
    what,
    holdMs,
    now,
    slots: createStreamSlots({
      maxConcurrent: upstream.caps[name].maxInFlight,
      maxPerClient: upstream.caps[name].maxPerClient,
    }),
  });

  // Capabilities: each registers its own routes.
  registerHealthRoutes(app, app.readiness);
  registerIpFamilyRoute(app, now);
  const ipInfo = registerIpInfo(app, config, {
    resolver,
    onAnswerCache: (hit) => metrics.cache('json', hit),
    onDataDownload: (outcome, seconds) => metrics.upstream('data_download', outcome, seconds),
    ...(deps.ipData ? { store: deps.ipData } : {}),
  });
  metrics.watchDataSources(() => ipInfo.store.current?.sources ?? []);
  registerTextRoutes(app, ipInfo);
  registerDnsRoute(app, resolver);
  registerDohJsonRoute(app, resolver);
  registerBlacklistRoute(
    app,
    createBlacklistChecker({
      resolver: timedDnsblResolver(resolver, metrics),
      lists: config.dnsblZones,
      timeoutMs: config.dnsblTimeoutMs,
      cache: countedTtlCache(shared.ttlCache('dnsbl', 10_000), 'dnsbl', metrics),
      cacheSeconds: config.dnsblCacheSeconds,
    }),
    charges,
  );
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
  registerPingRoute(app, probes);
  registerTracerouteRoute(app, probes, config);
  registerMtrRoute(app, probes, config);
  registerWhoisRoute(
    app,
    buildWhoisService(config, {
      resolver,
      now,
      log: app.log,
      cache: countedTtlCache(shared.ttlCache<WhoisResult>('whois', config.whoisCacheEntries), 'whois', metrics),
      onUpstream: (upstream, outcome, seconds) => metrics.upstream(upstream, outcome, seconds),
      referralPort: deps.whoisReferralPort,
      rdapPorts: deps.rdapPorts,
      trustedCertificates: deps.trustedCertificates,
    }),
    inFlightCap('whois', '/whois lookups', whoisHoldMs(config.whoisTimeoutMs)),
  );
  registerMailRoute(app, createMailChecker(resolver), {
    cap: inFlightCap('mail', '/mail checks', MAIL_CHECK_TIME_LIMIT_MS),
    charges,
  });
  registerSslRoute(
    app,
    timedTlsChecker(
      createTlsChecker({
        resolver,
        policy: config.allowPrivateTargets,
        port: config.tlsCheckPort,
        timeoutMs: config.tlsTimeoutMs,
        now,
        ...(deps.trustedCertificates ? { trustedCertificates: deps.trustedCertificates } : {}),
      }),
      metrics,
    ),
    inFlightCap('ssl', '/ssl checks', config.tlsTimeoutMs),
  );
  registerHttpCheckRoute(
    app,
    createHttpChecker({
      resolver,
      policy: config.allowPrivateTargets,
      ports: config.httpCheckPorts,
      timeoutMs: config.httpCheckTimeoutMs,
      maxBodyBytes: config.httpCheckMaxBodyBytes,
      now,
      ...(deps.trustedCertificates ? { trustedCertificates: deps.trustedCertificates } : {}),
    }),
    config.httpCheckPorts,
    inFlightCap('http', '/http checks', config.httpCheckTimeoutMs),
  );
  await registerAccountRoutes(app, accounts);
  const siteAssets = createAssetStore();
  registerDashboard(app, accounts, siteAssets);
  registerSite(app, {
    assets: siteAssets,
    routes,
    trustProxy: config.trustProxy,
    publicIpv4Url: config.publicIpv4Url,
    publicIpv6Url: config.publicIpv6Url,
  });
  registerOpenApiRoute(app, (request) => ({
    host: requestHost(requestFacts(request), config.trustProxy),
    secure: isSecureRequest(accounts, request),
  }));
  return app;
}
