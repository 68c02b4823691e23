import type { TtlCache } from '../cache/ttl-cache.ts';
import { DnsError, dnsFailureInWords } from '../dns/errors.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { QuestionTally } from '../limits/upstream-cost.ts';
import { type DnsblOutcome, type DnsblStatus, interpretDnsblOutcome } from './interpret.ts';
import { type Dnsbl, dnsblQueryName, hideZoneKeys } from './lists.ts';

export interface DnsblResult {
  name: string;
  zone: string;
  listed: boolean;
  status: DnsblStatus;
  return_codes: string[];
  reason: string | null;
  error?: string;
}

export interface BlacklistReport {
  ip: string;
  total: number;
  listed: number;
  clean: boolean;
  complete: boolean;
  errors: number;
  results: DnsblResult[];
  cached: boolean;
}

export interface BlacklistChecker {
  /** `tally`, when given, counts the DNS questions asked (what the call costs against the limits). */
  check(ipv4: string, tally?: QuestionTally): Promise<BlacklistReport>;
}

/**
 * Queries every list in parallel through the project's resolver, each bounded by `timeoutMs`, so
 * the whole answer takes about as long as the slowest list. The TXT reason is asked alongside the
 * A record rather than after it, so a listing costs no extra round trip.
 */
export function createBlacklistChecker(options: {
  resolver: Resolver;
  lists: readonly Dnsbl[];
  timeoutMs: number;
  cache: TtlCache<Omit<BlacklistReport, 'cached'>>;
  cacheSeconds: number;
}): BlacklistChecker {
  const { resolver, lists, timeoutMs, cache, cacheSeconds } = options;

  async function checkList(ip: string, list: Dnsbl, tally: QuestionTally): Promise<DnsblResult> {
    const name = dnsblQueryName(ip, list.zone);
    tally.questions += 2;
    const [address, text] = await Promise.allSettled([
      resolver.query(name, 'A', { timeoutMs }),
      resolver.query(name, 'TXT', { timeoutMs }),
    ]);
    let outcome: DnsblOutcome;
    if (address.status === 'fulfilled') {
      const addresses = address.value.answers.flatMap((record) => (record.type === 'A' ? [record.data] : []));
      outcome = { kind: 'answer', rcode: address.value.rcode, addresses };
    } else {
      outcome = { kind: 'failure', message: failureMessage(list, address.reason) };
    }
    const verdict = interpretDnsblOutcome(outcome);
    const reason =
      verdict.status === 'listed' && text.status === 'fulfilled'
        ? text.value.answers.flatMap((record) => (record.type === 'TXT' ? [record.data.join('')] : [])).join(' | ') ||
          null
        : null;
    return {
      name: list.name,
      zone: list.shownZone,
      listed: verdict.status === 'listed',
      status: verdict.status,
      return_codes: verdict.returnCodes,
      reason,
      ...(verdict.error === undefined ? {} : { error: verdict.error }),
    };
  }

  return {
    async check(ip, tally = { questions: 0 }) {
      const cached = await cache.get(ip);
      if (cached) return { ...cached, cached: true };
      const results = await Promise.all(lists.map((list) => checkList(ip, list, tally)));
      const listed = results.filter((result) => result.status === 'listed').length;
      const errors = results.filter((result) => result.status === 'error').length;
      const complete = errors === 0;
      const report = { ip, total: lists.length, listed, clean: listed === 0 && complete, complete, errors, results };
      // A report with errors is kept briefly only, so a passing outage does not stick for minutes.
      await cache.set(ip, report, errors > 0 ? Math.min(cacheSeconds, 30) : cacheSeconds);
      return { ...report, cached: false };
    },
  };
}

function failureMessage(list: Dnsbl, error: unknown): string {
  if (error instanceof DnsError) return `${list.shownZone}: ${dnsFailureInWords(error)}`;
  return hideZoneKeys(`${list.zone}: ${(error as Error).message}`);
}
