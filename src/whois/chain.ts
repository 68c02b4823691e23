import type { Resolver } from '../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../dns/target-policy.ts';
import { exchangeWhois, WhoisExchangeError } from './exchange.ts';
import type { WhoisChainTarget } from './parse/target.ts';
import { whoisQueryFor } from './query-form.ts';
import { findReferral, referralScheme } from './referral.ts';
import { formatWhoisServer, parseWhoisServer, type WhoisServerAddress } from './server-address.ts';

/** Referrals followed at most after the first server: IANA -> registry -> registrar needs two. */
export const MAX_REFERRALS = 3;

/** Why one server in the chain gave no answer. */
export type HopFailure =
  /** The referral host resolved to an address the target policy forbids; nothing was sent. */
  | { kind: 'forbidden'; message: string }
  | { kind: 'dns'; message: string }
  | { kind: WhoisExchangeError['kind']; message: string };

/** One server asked, in order: what was sent where, and what came back. */
export interface WhoisHop {
  /** `host:port` as named by WHOIS_SERVER or by the previous answer. */
  server: string;
  /** The IP address connected to (null when none was: resolution failed or was refused). */
  address: string | null;
  query: string;
  /** The decoded answer, or null when the server gave none. */
  raw: string | null;
  /** The next server this answer names, as written ('whois.markmonitor.com'). */
  referral: string | null;
  /** Why the referral was not followed, when it was not. */
  note: string | null;
  /** The answer ended with a connection reset: it may be cut short (see exchange.ts). */
  endedByReset: boolean;
  failure: HopFailure | null;
  durationMs: number;
}

export interface WhoisChainOptions {
  resolver: Resolver;
  /** Applied to every referral host; the first server is the operator's choice and is not checked. */
  policy: TargetPolicy;
  firstServer: WhoisServerAddress;
  /**
   * The one port referrals are followed to (43, except in tests whose fake servers listen
   * elsewhere): the port of a referral that names none; one that names another is not followed.
   */
  referralPort: number;
  timeoutMs: number;
  maxBytes?: number;
}

async function resolveServer(
  server: WhoisServerAddress,
  options: WhoisChainOptions,
  checked: boolean,
  signal: AbortSignal,
): Promise<{ address: string } | HopFailure> {
  const policy = checked ? options.policy : { allowPrivate: true };
  const abandoned = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
  );
  try {
    const resolution = await Promise.race([
      resolveTarget(server.host, { resolver: options.resolver, policy }),
      abandoned,
    ]);
    if (resolution.ok) return { address: resolution.address };
    return { kind: resolution.reason === 'forbidden' ? 'forbidden' : 'dns', message: resolution.message };
  } catch (error) {
    if (signal.aborted)
      return { kind: 'timeout', message: `could not resolve ${server.host} within ${options.timeoutMs} ms` };
    throw error;
  }
}

async function askServer(
  server: WhoisServerAddress,
  target: WhoisChainTarget,
  options: WhoisChainOptions,
  checked: boolean,
): Promise<WhoisHop> {
  // Durations are measured on the monotonic clock, whatever clock the app is given.
  const started = performance.now();
  const query = whoisQueryFor(server.host, target);
  const hop: WhoisHop = {
    server: formatWhoisServer(server),
    address: null,
    query,
    raw: null,
    referral: null,
    note: null,
    endedByReset: false,
    failure: null,
    durationMs: 0,
  };
  // One clock for the hop: resolving the server's name and the exchange share the per-hop timeout.
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const resolved = await resolveServer(server, options, checked, deadline);
  if ('kind' in resolved) {
    hop.failure = resolved;
  } else {
    hop.address = resolved.address;
    try {
      const answer = await exchangeWhois({
        address: resolved.address,
        port: server.port,
        query,
        timeoutMs: options.timeoutMs,
        deadline,
        ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      });
      hop.raw = answer.text;
      hop.endedByReset = answer.endedByReset;
      hop.referral = findReferral(hop.raw);
    } catch (error) {
      if (!(error instanceof WhoisExchangeError)) throw error;
      hop.failure = { kind: error.kind, message: error.message };
    }
  }
  hop.durationMs = Math.max(0, Math.round(performance.now() - started));
  return hop;
}

/**
 * Asks the first server, then follows each answer's referral to the most specific server: at most
 * MAX_REFERRALS referrals, never the same server twice (a registrar naming itself, or two servers
 * naming each other, ends the chain). A server that fails ends the chain too; the hops say how.
 */
export async function followWhoisReferrals(target: WhoisChainTarget, options: WhoisChainOptions): Promise<WhoisHop[]> {
  const hops: WhoisHop[] = [];
  const asked = new Set<string>();
  let server: WhoisServerAddress = options.firstServer;
  for (;;) {
    asked.add(formatWhoisServer(server));
    const hop = await askServer(server, target, options, hops.length > 0);
    hops.push(hop);
    if (hop.failure || hop.referral === null) return hops;
    const scheme = referralScheme(hop.referral);
    if (scheme !== null) {
      hop.note = `referral not followed: ${scheme === 'rwhois' ? 'an RWHOIS server' : `a ${scheme} address`}, not WHOIS over port 43`;
      return hops;
    }
    const next = parseWhoisServer(hop.referral, options.referralPort);
    if (!next.ok) {
      hop.note = `referral not followed: ${next.reason}`;
      return hops;
    }
    if (next.server.port !== options.referralPort) {
      // Like the HTTP check's port list: an answer must not steer the service to any port it likes.
      hop.note = `referral not followed: ${formatWhoisServer(next.server)} names port ${next.server.port}; referrals are followed to port ${options.referralPort} only`;
      return hops;
    }
    if (asked.has(formatWhoisServer(next.server))) {
      hop.note = `referral not followed: ${formatWhoisServer(next.server)} was already asked`;
      return hops;
    }
    if (hops.length > MAX_REFERRALS) {
      hop.note = `referral not followed: at most ${MAX_REFERRALS} referrals are followed`;
      return hops;
    }
    server = next.server;
  }
}
