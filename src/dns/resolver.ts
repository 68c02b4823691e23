import { isIP } from 'node:net';
import { sharedWhileInFlight } from '../cache/in-flight.ts';
import { type CachedAnswer, cacheKey, createMemoryDnsCache, type DnsCache } from './cache.ts';
import { MAX_CNAME_HOPS, sameName, walkCnameChain, withSignatures } from './chain.ts';
import { createDnsClient, type DnsClient, type DnsTiming, timingOf } from './client.ts';
import { DnsError } from './errors.ts';
import type { QueryFlags } from './message.ts';
import { normaliseQueryName, toPtrName } from './names.ts';
import type { QueryRecordType } from './records.ts';
import type { DnsServer } from './servers.ts';
import type { DnsTransport } from './transport.ts';
import { queryableType } from './types.ts';

export type QueryResult = CachedAnswer & { fromCache: boolean };

export type ResolvedAddress = { address: string; family: 4 | 6 };

export type QueryOptions = {
  /** Bounds both one try and the whole query (a blacklist's per-list budget). */
  timeoutMs?: number;
  /**
   * DO, CD and AD bits for the query. With DO, the RRSIGs covering the records (and the CNAMEs on
   * the way) follow the records they sign, and `flags.ad` says whether the resolver validated them.
   */
  flags?: QueryFlags;
};

export type Resolver = {
  /**
   * The records of `type` for `name`, preceded by the CNAMEs leading to them (in order); the
   * authority section for negative answers. Throws DnsError when no server answers usably, and
   * RangeError for a name or type the caller should have validated (normaliseQueryName,
   * queryableType: a QueryRecordType, or any other type by mnemonic, `TYPE<n>` or number).
   */
  query(name: string, type: QueryRecordType | (string & {}), options?: QueryOptions): Promise<QueryResult>;
  /**
   * The addresses to connect to for `name`, following CNAMEs; an IP literal is returned as it is
   * (or not at all when of the other family). Empty when the name has none (or does not exist).
   * Throws DnsError when no address was found and a family asked failed (A SERVFAIL beside an
   * empty AAAA does not show that the name has no address); RangeError for an invalid name.
   */
  resolveAddresses(name: string, family?: 4 | 6 | 'any'): Promise<ResolvedAddress[]>;
  /** The PTR name of an IP address, or null on any failure (bad input, NXDOMAIN, timeout). */
  reverse(ip: string, options?: { timeoutMs?: number }): Promise<string | null>;
};

export type ResolverOptions = {
  servers: readonly DnsServer[];
  /** An in-process cache by default; pass `noDnsCache` to turn caching off. */
  cache?: DnsCache;
  timeoutMs?: number;
  /** Overall bound for one query, retries included. */
  deadlineMs?: number;
  /** Default bound for reverse(): reverse names are decoration and must not hold up a response. */
  reverseTimeoutMs?: number;
  triesPerServer?: number;
  nextId?: () => number;
  transport?: DnsTransport;
};

export function createResolver(options: ResolverOptions): Resolver {
  const timing: Partial<DnsTiming> = {};
  if (options.timeoutMs !== undefined) timing.tryTimeoutMs = options.timeoutMs;
  if (options.deadlineMs !== undefined) timing.deadlineMs = options.deadlineMs;
  const client = createDnsClient({
    servers: options.servers,
    timing,
    ...(options.triesPerServer === undefined ? {} : { triesPerServer: options.triesPerServer }),
    ...(options.nextId === undefined ? {} : { nextId: options.nextId }),
    ...(options.transport === undefined ? {} : { transport: options.transport }),
  });
  const cache = options.cache ?? createMemoryDnsCache();
  const reverseTimeoutMs = options.reverseTimeoutMs ?? 1500;
  // Identical questions asked at the same time share one exchange (a page of blacklist checks
  // or many clients asking for one popular name).
  const inFlight = sharedWhileInFlight<string, CachedAnswer>();

  async function lookup(
    name: string,
    type: string,
    override?: Partial<DnsTiming>,
    flags: QueryFlags = {},
  ): Promise<QueryResult> {
    const key = cacheKey(name, type, flags);
    const cached = await cache.get(key);
    if (cached !== undefined) return { ...cached, fromCache: true };
    // Only the caller that asked stores the answer; those that joined it do not store it again.
    const joined = inFlight.get(key);
    if (joined !== undefined) return { ...(await joined), fromCache: false };
    const answer = await inFlight(key, () =>
      resolveWithChain(client, name, type, override, timingOf(timing, override).deadlineMs, flags),
    );
    await cache.set(key, answer);
    return { ...answer, fromCache: false };
  }

  async function query(name: string, type: string, queryOptions: QueryOptions = {}): Promise<QueryResult> {
    const asked = queryableType(type);
    if (asked === undefined) throw new RangeError(`unsupported record type ${type}`);
    const normalised = normaliseQueryName(name);
    if (!normalised.ok) throw new RangeError(normalised.reason);
    const { timeoutMs } = queryOptions;
    const override = timeoutMs === undefined ? undefined : { tryTimeoutMs: timeoutMs, deadlineMs: timeoutMs };
    return lookup(normalised.name, asked, override, queryOptions.flags);
  }

  async function resolveAddresses(name: string, family: 4 | 6 | 'any' = 'any'): Promise<ResolvedAddress[]> {
    const literal = isIP(name);
    if (literal === 4 || literal === 6) {
      return family === 'any' || family === literal ? [{ address: name, family: literal }] : [];
    }
    const types = family === 'any' ? (['A', 'AAAA'] as const) : family === 4 ? (['A'] as const) : (['AAAA'] as const);
    const settled = await Promise.allSettled(types.map((type) => query(name, type)));
    const failures = settled.filter((result) => result.status === 'rejected');
    const addresses = settled.flatMap((result) =>
      result.status === 'fulfilled'
        ? result.value.answers.flatMap((record) =>
            record.type === 'A' || record.type === 'AAAA'
              ? [{ address: record.data, family: record.type === 'A' ? (4 as const) : (6 as const) }]
              : [],
          )
        : [],
    );
    if (addresses.length === 0 && failures.length > 0) throw failures[0]?.reason;
    return addresses;
  }

  async function reverse(ip: string, reverseOptions: { timeoutMs?: number } = {}): Promise<string | null> {
    const ptrName = toPtrName(ip);
    if (!ptrName.ok) return null;
    const timeoutMs = reverseOptions.timeoutMs ?? reverseTimeoutMs;
    try {
      const result = await lookup(ptrName.name, 'PTR', { tryTimeoutMs: timeoutMs, deadlineMs: timeoutMs });
      const ptr = result.answers.find((record) => record.type === 'PTR');
      return ptr?.type === 'PTR' ? ptr.data : null;
    } catch {
      return null;
    }
  }

  return { query, resolveAddresses, reverse };
}

/**
 * Asks for `name`/`type` and, when the answer stops at a CNAME whose target it says nothing about
 * (an authoritative server answering for a name outside its zones), asks again for the target.
 */
async function resolveWithChain(
  client: DnsClient,
  name: string,
  type: string,
  timing: Partial<DnsTiming> | undefined,
  deadlineMs: number,
  flags: QueryFlags,
): Promise<CachedAnswer> {
  const collected: CachedAnswer['answers'] = [];
  // AD holds for the whole answer only if every step of the chain had it.
  let authenticated = true;
  const visited = new Set<string>();
  // The whole chain shares the query's bound: each step gets what is left of it, not a bound of its
  // own (eleven slow steps of a dangling chain took 16.5 s against a 6 s bound).
  const deadline = performance.now() + deadlineMs;
  let current = name;
  for (;;) {
    visited.add(current.toLowerCase());
    const remainingMs = deadline - performance.now();
    if (remainingMs < 10) {
      throw new DnsError('TIMEOUT', `TIMEOUT for ${name} ${type}: the CNAME chain was still unresolved at ${current}`);
    }
    const response = await client
      .exchange({ name: current, type, flags }, { ...timing, deadlineMs: remainingMs })
      .catch((error: unknown) => {
        // A failure after the first step names the question asked, and where the chain had got to.
        if (!(error instanceof DnsError) || current === name) throw error;
        throw new DnsError(
          error.code,
          `${error.code} for ${name} ${type}: the CNAME chain was still unresolved at ${current} (${error.message})`,
          error.attempts,
        );
      });
    const walk = walkCnameChain(response.answers, current, type);
    const found = [...walk.chain, ...walk.records];
    collected.push(...(flags.dnssecOk ? withSignatures(found, response.answers) : found));
    authenticated &&= response.flags.ad;
    const answer: CachedAnswer = {
      rcode: response.rcode,
      answers: collected,
      authority: response.authority,
      server: response.server,
      flags: { ...response.flags, ad: authenticated },
    };
    const dangling =
      walk.records.length === 0 &&
      walk.chain.length > 0 &&
      response.rcode === 'NOERROR' &&
      // An SOA means the server looked at the target and found nothing: the chain's end is final.
      !response.authority.some((record) => record.type === 'SOA');
    if (!dangling || sameName(walk.end, current)) return answer;
    if (visited.has(walk.end.toLowerCase()) || collected.length > MAX_CNAME_HOPS) return answer;
    current = walk.end;
  }
}
