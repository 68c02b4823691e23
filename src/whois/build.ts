import type { TtlCache } from '../cache/ttl-cache.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { TargetPolicy } from '../dns/target-policy.ts';
import type { WhoisSettings } from './config.ts';
import type { BootstrapSnapshot } from './rdap/bootstrap.ts';
import { createRdapBootstrapStore, loadBootstrapSnapshot, type RdapBootstrapStore } from './rdap/bootstrap-store.ts';
import { HttpGetError, type HttpGetResult, httpGet } from './rdap/http-get.ts';
import { createWhoisService, type WhoisResult, type WhoisService, type WhoisUpstreamReport } from './service.ts';

/** RDAP documents are larger than WHOIS text (entities, links, notices), rarely above 100 KiB. */
export const MAX_RDAP_ANSWER_BYTES = 1024 * 1024;
/** The ports RDAP servers are asked on: HTTPS and HTTP's own. */
export const RDAP_PORTS: readonly number[] = [443, 80];
/** IANA's three bootstrap files together are under 200 KiB. */
const MAX_BOOTSTRAP_FILE_BYTES = 4 * 1024 * 1024;
const BOOTSTRAP_TIMEOUT_MS = 30_000;

export interface RdapAccessConfig {
  readonly allowPrivateTargets: TargetPolicy;
  readonly whoisTimeoutMs: number;
  /** null: `off`, the shipped snapshot only. */
  readonly rdapBootstrapUrl: string | null;
  readonly rdapBootstrapRefreshHours: number;
}

export interface RdapAccessDeps {
  resolver: Resolver;
  now?: () => number;
  log?: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** Ports RDAP URLs may name: 443 and 80, except in tests whose fake servers listen elsewhere. */
  rdapPorts?: readonly number[] | undefined;
  /** PEM certificates that replace Node's bundled roots for RDAP over HTTPS. */
  trustedCertificates?: readonly string[] | undefined;
  /** Default: the snapshot shipped in src/whois/rdap/iana-bootstrap.json. */
  bootstrapSnapshot?: BootstrapSnapshot | undefined;
  /** Told of every RDAP request, with its outcome and duration (the metrics). */
  onUpstream?: WhoisUpstreamReport;
}

/** What every RDAP client of the service shares: one bootstrap store and one policy-checked GET. */
export interface RdapAccess {
  bootstrap: RdapBootstrapStore;
  get: (url: string) => Promise<HttpGetResult>;
}

/** Made once by the composition root and handed to /whois and /abuse. */
export function buildRdapAccess(config: RdapAccessConfig, deps: RdapAccessDeps): RdapAccess {
  const policy = config.allowPrivateTargets;
  const ca = deps.trustedCertificates ? { ca: deps.trustedCertificates } : {};
  const bootstrap = createRdapBootstrapStore({
    snapshot: deps.bootstrapSnapshot ?? loadBootstrapSnapshot(),
    refreshUrl: config.rdapBootstrapUrl ?? '',
    refreshIntervalMs: config.rdapBootstrapUrl === null ? 0 : config.rdapBootstrapRefreshHours * 3_600_000,
    missWaitMs: config.whoisTimeoutMs,
    ...(deps.now ? { now: deps.now } : {}),
    // The bootstrap URL is the operator's setting, like WHOIS_SERVER: not subject to the target policy.
    fetchText: async (url) => {
      const answer = await httpGet(url, {
        resolver: deps.resolver,
        policy: null,
        timeoutMs: BOOTSTRAP_TIMEOUT_MS,
        maxBytes: MAX_BOOTSTRAP_FILE_BYTES,
        headers: { accept: 'application/json' },
        ...ca,
      });
      if (answer.status !== 200) throw new Error(`${url} answered HTTP ${answer.status}`);
      return answer.body;
    },
    onRefresh: (outcome) => {
      if (outcome.ok) deps.log?.info({ rdapBootstrap: outcome }, 'RDAP bootstrap registries refreshed');
      else deps.log?.warn({ rdapBootstrap: outcome }, 'RDAP bootstrap refresh failed; keeping the data in use');
    },
  });
  // RDAP servers come from downloaded data and redirect elsewhere: every host is checked.
  const get = async (url: string) => {
    const started = performance.now();
    const report = (outcome: 'ok' | 'error' | 'timeout') =>
      deps.onUpstream?.('rdap', outcome, (performance.now() - started) / 1000);
    try {
      const answer = await httpGet(url, {
        resolver: deps.resolver,
        policy,
        // Like WHOIS referrals: bootstrap data and redirects must not steer the service to any port.
        ports: deps.rdapPorts ?? RDAP_PORTS,
        timeoutMs: config.whoisTimeoutMs,
        maxBytes: MAX_RDAP_ANSWER_BYTES,
        headers: { accept: 'application/rdap+json, application/json;q=0.9' },
        ...ca,
      });
      report(answer.status < 500 ? 'ok' : 'error');
      return answer;
    } catch (error) {
      report(error instanceof HttpGetError && error.kind === 'timeout' ? 'timeout' : 'error');
      throw error;
    }
  };
  return { bootstrap, get };
}

export interface WhoisBuildConfig extends WhoisSettings {
  readonly allowPrivateTargets: TargetPolicy;
}

export interface WhoisBuildDeps {
  resolver: Resolver;
  cache: TtlCache<WhoisResult>;
  rdap: RdapAccess;
  now?: () => number;
  referralPort?: number | undefined;
  /** Told of every WHOIS exchange, with its outcome and duration (the metrics). */
  onUpstream?: WhoisUpstreamReport;
}

/** Assembles the WHOIS service: the referral client, the RDAP fallback, the cache. */
export function buildWhoisService(config: WhoisBuildConfig, deps: WhoisBuildDeps): WhoisService {
  return createWhoisService({
    resolver: deps.resolver,
    policy: config.allowPrivateTargets,
    settings: config,
    cache: deps.cache,
    bootstrap: deps.rdap.bootstrap,
    rdapGet: deps.rdap.get,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.referralPort === undefined ? {} : { referralPort: deps.referralPort }),
    ...(deps.onUpstream ? { onUpstream: deps.onUpstream } : {}),
  });
}
