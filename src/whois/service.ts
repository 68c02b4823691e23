import { sharedWhileInFlight } from '../cache/in-flight.ts';
import type { TtlCache } from '../cache/ttl-cache.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { TargetPolicy } from '../dns/target-policy.ts';
import { readWhoisAnswers } from './answers.ts';
import { followWhoisReferrals } from './chain.ts';
import type { WhoisSettings } from './config.ts';
import { emptyDomainRecord, ipRecord, type WhoisRecord } from './parse/record.ts';
import { targetText, type WhoisChainTarget, type WhoisTarget } from './parse/target.ts';
import type { RdapBootstrapStore } from './rdap/bootstrap-store.ts';
import { lookupRdap, type RdapClientOptions } from './rdap/client.ts';
import { WHOIS_PORT } from './server-address.ts';
import { describeFailedStep, stepFromHop, stepFromRdap, type WhoisServerStep } from './steps.ts';

/** A finished lookup: what the response carries besides `cached`, and what the cache keeps. */
export interface WhoisResult {
  target: string;
  target_type: WhoisTarget['kind'];
  source: 'whois' | 'rdap';
  raw: string;
  parsed: WhoisRecord;
  servers: WhoisServerStep[];
  /** When the servers were asked (ISO 8601 UTC): a cached answer keeps its original time. */
  queried_at: string;
}

/** Why a lookup produced no result: 'forbidden' is the caller's 400, 'upstream' a 502. */
export class WhoisLookupError extends Error {
  override name = 'WhoisLookupError';
  readonly kind: 'forbidden' | 'upstream';

  constructor(kind: 'forbidden' | 'upstream', message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface WhoisService {
  lookup(target: WhoisTarget): Promise<WhoisResult & { cached: boolean }>;
}

export interface WhoisServiceOptions {
  resolver: Resolver;
  policy: TargetPolicy;
  settings: WhoisSettings;
  cache: TtlCache<WhoisResult>;
  bootstrap: RdapBootstrapStore;
  rdapGet: RdapClientOptions['get'];
  now?: () => number;
  /** Port for a referral that names none; tests run their fake servers on a random one. */
  referralPort?: number;
  /** Told of every port-43 exchange (netinfo_upstream_requests_total{upstream="whois"}). */
  onUpstream?: WhoisUpstreamReport;
}

export type WhoisUpstreamReport = (
  upstream: 'whois' | 'rdap',
  outcome: 'ok' | 'error' | 'timeout',
  seconds: number,
) => void;

/**
 * A result that lacks a failed server's answer, or whose answer may be cut short, is kept briefly,
 * so the server is asked again soon.
 */
const PARTIAL_RESULT_CACHE_SECONDS = 60;

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function emptyRecord(target: WhoisChainTarget): WhoisRecord {
  return target.kind === 'domain' ? emptyDomainRecord(null) : ipRecord(null);
}

/**
 * What the port-43 chain is asked: a network as its first address (registries answer with the
 * most specific block holding it); an AS number not at all, RDAP's autnum answers it.
 */
function chainTargetOf(target: WhoisTarget): WhoisChainTarget | null {
  if (target.kind === 'network') return { kind: 'ip', address: target.address };
  return target.kind === 'asn' ? null : target;
}

export function createWhoisService(options: WhoisServiceOptions): WhoisService {
  const now = options.now ?? Date.now;
  const { settings } = options;
  const inFlight = sharedWhileInFlight<string, WhoisResult>();

  /** The result, and whether it may lack something (a server failed, or an answer may be cut short). */
  async function ask(target: WhoisTarget): Promise<{ result: WhoisResult; incomplete: boolean }> {
    const queriedAt = isoSeconds(now());
    const result = (source: WhoisResult['source'], raw: string, parsed: WhoisRecord, servers: WhoisServerStep[]) => ({
      result: {
        target: targetText(target),
        target_type: target.kind,
        source,
        raw,
        parsed,
        servers,
        queried_at: queriedAt,
      },
      incomplete: servers.some((step) => step.error !== null) || hops.some((hop) => hop.endedByReset),
    });

    const chainTarget = chainTargetOf(target);
    const hops = chainTarget
      ? await followWhoisReferrals(chainTarget, {
          resolver: options.resolver,
          policy: options.policy,
          firstServer: settings.whoisServer,
          referralPort: options.referralPort ?? WHOIS_PORT,
          timeoutMs: settings.whoisTimeoutMs,
        })
      : [];
    // A hop without an address never reached a WHOIS server (its name did not resolve): DNS's to count.
    for (const hop of hops) {
      if (hop.address === null || options.onUpstream === undefined) continue;
      const outcome = hop.failure === null ? 'ok' : hop.failure.kind === 'timeout' ? 'timeout' : 'error';
      options.onUpstream('whois', outcome, hop.durationMs / 1000);
    }
    const steps = hops.map(stepFromHop);
    const reading = chainTarget ? readWhoisAnswers(chainTarget, hops) : { found: false as const };
    if (reading.found) return result('whois', hops[reading.hop]?.raw ?? '', reading.record, steps);

    // No WHOIS answer about the target (the TLD has no WHOIS server, a server failed, or its answer
    // could not be read): RDAP is asked.
    const rdap = await lookupRdap(target, { bootstrap: options.bootstrap, get: options.rdapGet });
    if (rdap.kind === 'answer')
      return result('rdap', rdap.raw, rdap.record, [...steps, ...rdap.attempts.map(stepFromRdap)]);
    if (rdap.kind === 'failed') steps.push(...rdap.attempts.map(stepFromRdap));

    const refusedHop = hops.find((hop) => hop.failure?.kind === 'forbidden');
    if (refusedHop) {
      throw new WhoisLookupError(
        'forbidden',
        `WHOIS lookup of ${targetText(target)} stopped at the referral to ${refusedHop.server}: ${refusedHop.failure?.message}.`,
      );
    }
    if (chainTarget === null) {
      // An AS number has no WHOIS chain to fall back on: RDAP's failure is the lookup's.
      const why =
        rdap.kind === 'unavailable'
          ? rdap.reason
          : steps
              .filter((step) => step.error !== null)
              .map(describeFailedStep)
              .join('; ');
      throw new WhoisLookupError('upstream', `RDAP lookup of ${targetText(target)} failed: ${why}.`);
    }
    const failed = steps.filter((step) => step.error !== null);
    if (failed.length > 0) {
      const rdapNote = rdap.kind === 'unavailable' ? `; no RDAP fallback: ${rdap.reason}` : '';
      throw new WhoisLookupError(
        'upstream',
        `WHOIS lookup of ${targetText(target)} failed: ${failed.map(describeFailedStep).join('; ')}${rdapNote}.`,
      );
    }
    // Every server answered, none about the target, and no RDAP server exists: the last answer is
    // what there is (for example IANA's record of a TLD that runs no WHOIS server).
    const last = hops.findLast((hop) => hop.raw !== null);
    return result('whois', last?.raw ?? '', emptyRecord(chainTarget), steps);
  }

  async function lookupAndCache(key: string, target: WhoisTarget): Promise<WhoisResult> {
    const { result: fresh, incomplete } = await ask(target);
    const seconds = incomplete
      ? Math.min(PARTIAL_RESULT_CACHE_SECONDS, settings.whoisCacheSeconds)
      : settings.whoisCacheSeconds;
    if (seconds > 0) await options.cache.set(key, fresh, seconds);
    return fresh;
  }

  return {
    async lookup(target) {
      const key = `whois:${target.kind}:${targetText(target)}`;
      const cached = settings.whoisCacheSeconds > 0 ? await options.cache.get(key) : undefined;
      if (cached) return { ...cached, cached: true };
      // Identical lookups at the same time share one walk of the chain.
      return { ...(await inFlight(key, () => lookupAndCache(key, target))), cached: false };
    },
  };
}
