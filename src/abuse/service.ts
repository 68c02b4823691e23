import type { FastifyRequest } from 'fastify';
import { sharedWhileInFlight } from '../cache/in-flight.ts';
import type { TtlCache } from '../cache/ttl-cache.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import type { RdapAccess } from '../whois/build.ts';
import { HttpGetError, type HttpGetResult } from '../whois/rdap/http-get.ts';
import { type AbuseEntity, type RdapNetworkFacts, readAbuseContact, registryOf } from './abuse-contact.ts';

/** Parent networks asked after the address's own at most: registries nest allocations two or three deep. */
export const MAX_PARENT_LEVELS = 3;

export interface AbuseContact extends AbuseEntity {
  registry: string;
  source: string;
  /** The network whose answer holds the contact. */
  network: RdapNetworkFacts;
}

/** What a lookup found about an address, as the cache keeps it. */
export type AbuseFinding =
  | { found: true; contact: AbuseContact; queried_at: string }
  /** `network` null: the registry has no network holding the address (RDAP 404). */
  | { found: false; registry: string; source: string; network: RdapNetworkFacts | null; queried_at: string };

/** An RDAP server failed (the lookup's 502): the message names the registry and what went wrong. */
export class AbuseLookupError extends Error {
  override name = 'AbuseLookupError';
}

export interface AbuseService {
  /** A public address's finding (parseAbuseAddress first), under the in-flight cap. */
  lookup(ip: string, request: FastifyRequest): Promise<AbuseFinding & { cached: boolean }>;
}

export interface AbuseServiceOptions {
  rdap: RdapAccess;
  cache: TtlCache<AbuseFinding>;
  /** 0: no cache. */
  cacheSeconds: number;
  cap: InFlightCap;
  now?: () => number;
}

/** The longest one lookup runs: a bootstrap refresh waited for, then each network within WHOIS_TIMEOUT_MS. */
export function abuseTimeLimitMs(timeoutMs: number): number {
  return (MAX_PARENT_LEVELS + 2) * timeoutMs;
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The 404's message: who was asked, about which network. */
export function describeNoContact(ip: string, finding: Extract<AbuseFinding, { found: false }>): string {
  if (finding.network === null) return `${finding.registry} has no network holding ${ip} (${finding.source}).`;
  const network = finding.network.handle ?? finding.network.range ?? 'the network';
  return `${finding.registry} names no abuse contact for ${ip}: its RDAP answer about ${network} (${finding.source}) has no entity with role "abuse" and an e-mail address, nor has any parent network it links to (${MAX_PARENT_LEVELS} at most).`;
}

function failure(ip: string, url: string, address: string | null, what: string): AbuseLookupError {
  const at = address === null ? '' : ` at ${address}`;
  return new AbuseLookupError(`Abuse contact of ${ip}: ${registryOf(url)}'s RDAP server failed: ${url}${at}: ${what}.`);
}

export function createAbuseService(options: AbuseServiceOptions): AbuseService {
  const now = options.now ?? Date.now;
  const { rdap, cache, cacheSeconds } = options;
  const inFlight = sharedWhileInFlight<string, AbuseFinding>();

  /** The answer of `url`; null for a 404 (no such network). */
  async function fetchNetwork(ip: string, url: string): Promise<HttpGetResult | null> {
    let answer: HttpGetResult;
    try {
      answer = await rdap.get(url);
    } catch (error) {
      if (!(error instanceof HttpGetError)) throw error;
      // A refused redirect names the URL it went to (a refused port says so itself).
      const redirect = error.url === url || error.kind === 'port' ? '' : `redirected to ${error.url}: `;
      throw failure(ip, url, error.address, `${redirect}${error.message}`);
    }
    if (answer.status === 404) return null;
    if (answer.status !== 200) {
      const moved = answer.url === url ? '' : ` (redirected to ${answer.url})`;
      throw failure(ip, url, answer.address, `answered HTTP ${answer.status}${moved}`);
    }
    return answer;
  }

  async function find(ip: string): Promise<AbuseFinding> {
    const queriedAt = isoSeconds(now());
    const [base] = await rdap.bootstrap.ipServers(ip);
    if (base === undefined) {
      throw new AbuseLookupError(`Abuse contact of ${ip}: IANA's RDAP bootstrap registry names no RDAP server for it.`);
    }
    const firstUrl = `${base}ip/${ip}`;
    let none: AbuseFinding = {
      found: false,
      registry: registryOf(firstUrl),
      source: firstUrl,
      network: null,
      queried_at: queriedAt,
    };
    const asked = new Set<string>();
    for (let url = firstUrl; asked.size <= MAX_PARENT_LEVELS && !asked.has(url); ) {
      asked.add(url);
      const answer = await fetchNetwork(ip, url);
      if (answer === null) break;
      const reading = readAbuseContact(answer.body, answer.url);
      if (reading.kind === 'unreadable') throw failure(ip, url, answer.address, reading.reason);
      const registry = registryOf(answer.url);
      if (reading.kind === 'contact') {
        const contact = { ...reading.entity, registry, source: answer.url, network: reading.network };
        return { found: true, contact, queried_at: queriedAt };
      }
      // The 404 names the address's own network, not a parent's.
      if (asked.size === 1) none = { ...none, registry, source: answer.url, network: reading.network };
      if (reading.kind === 'none') break;
      url = reading.url;
    }
    return none;
  }

  async function findAndCache(key: string, ip: string): Promise<AbuseFinding> {
    const finding = await find(ip);
    if (cacheSeconds > 0) await cache.set(key, finding, cacheSeconds);
    return finding;
  }

  return {
    async lookup(ip, request) {
      const key = `abuse:${ip}`;
      const cached = cacheSeconds > 0 ? await cache.get(key) : undefined;
      if (cached) return { ...cached, cached: true };
      const finding = await withinInFlightCap(options.cap, request, () => inFlight(key, () => findAndCache(key, ip)));
      return { ...finding, cached: false };
    },
  };
}
