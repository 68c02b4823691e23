import { DnsError, dnsFailureInWords } from '../dns/errors.ts';
import type { Resolver } from '../dns/resolver.ts';
import type { QuestionTally } from '../limits/upstream-cost.ts';
import type { MailReport } from './schema.ts';
import {
  type Asked,
  addressesOf,
  describeDkim,
  describeDmarc,
  describeMtaSts,
  describeMx,
  describeSpf,
  describeTlsRpt,
  mxRecords,
  nonexistent,
  txtStrings,
} from './sections.ts';
import type { SpfDns } from './spf-lookups.ts';
import { MAIL_TOOL, MAX_QUERIES_PER_CHECK } from './tool.ts';

export type MailChecker = {
  /** `tally`, when given, counts the questions asked (what the call costs against the limits). */
  check(domain: string, dkimSelector: string | null, tally?: QuestionTally): Promise<MailReport>;
};

/** Thrown when not even the domain's own MX and TXT lookups got an answer: the check says nothing. */
export class MailLookupFailed extends Error {
  readonly dnsError: DnsError;
  constructor(dnsError: DnsError) {
    super(dnsError.message);
    this.dnsError = dnsError;
  }
}

export function createMailChecker(resolver: Resolver, timeLimitMs = MAIL_TOOL.timeLimitMs): MailChecker {
  return { check: (domain, selector, tally) => checkMail(resolver, domain, selector, timeLimitMs, tally) };
}

async function checkMail(
  resolver: Resolver,
  domain: string,
  selector: string | null,
  timeLimitMs: number,
  tally: QuestionTally = { questions: 0 },
): Promise<MailReport> {
  let budget = MAX_QUERIES_PER_CHECK;
  let budgetSpent = false;
  let timeSpent = false;
  const deadline = performance.now() + timeLimitMs;
  const outOfTime = (name: string, type: string): Asked => {
    timeSpent = true;
    return {
      result: null,
      failure: `${name} ${type} got no answer within the check's time limit of ${timeLimitMs} ms`,
      error: null,
    };
  };
  const ask = async (name: string, type: 'A' | 'AAAA' | 'MX' | 'TXT'): Promise<Asked> => {
    const left = deadline - performance.now();
    if (left <= 0) return outOfTime(name, type);
    if (budget <= 0) {
      budgetSpent = true;
      return {
        result: null,
        failure: `${name} ${type} was not asked: the check's limit of ${MAX_QUERIES_PER_CHECK} DNS queries was reached`,
        error: null,
      };
    }
    budget -= 1;
    tally.questions += 1;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), left);
    });
    try {
      const result = await Promise.race([resolver.query(name, type), late]);
      if (result === null) return outOfTime(name, type);
      return { result, failure: null, error: null };
    } catch (error) {
      // A name from a record (an SPF include, an MX host) that is no valid query name.
      if (error instanceof RangeError) {
        return { result: null, failure: `${name} cannot be looked up: ${error.message}`, error: null };
      }
      if (!(error instanceof DnsError)) throw error;
      return { result: null, failure: `the lookup of ${name} ${type} failed: ${dnsFailureInWords(error)}`, error };
    } finally {
      clearTimeout(timer);
    }
  };
  const dkimName = selector === null ? null : `${selector}._domainkey.${domain}`;
  // Everything the domain's own records need is asked at once: one round trip when nothing is cached.
  const [mx, txt, dmarc, dkim, mtaSts, tlsRpt] = await Promise.all([
    ask(domain, 'MX'),
    ask(domain, 'TXT'),
    ask(`_dmarc.${domain}`, 'TXT'),
    dkimName === null ? Promise.resolve(null) : ask(dkimName, 'TXT'),
    ask(`_mta-sts.${domain}`, 'TXT'),
    ask(`_smtp._tls.${domain}`, 'TXT'),
  ]);
  if (mx.result === null && txt.result === null && mx.error && txt.error) throw new MailLookupFailed(mx.error);
  if (mx.result?.rcode === 'NXDOMAIN' || txt.result?.rcode === 'NXDOMAIN') {
    return nonexistent(domain, selector, dkimName);
  }

  const spfProblems: string[] = [];
  const spfDns: SpfDns = {
    txt: async (name) => {
      const asked = await ask(name, 'TXT');
      if (asked.failure) spfProblems.push(asked.failure);
      return asked.result ? txtStrings(asked.result.answers) : null;
    },
    mx: async (name) => {
      const asked = await ask(name, 'MX');
      if (asked.failure) spfProblems.push(asked.failure);
      return asked.result ? mxRecords(asked.result.answers).map((record) => record.host) : null;
    },
    addressCount: async (name) => {
      const [a, aaaa] = await Promise.all([ask(name, 'A'), ask(name, 'AAAA')]);
      for (const asked of [a, aaaa]) if (asked.failure) spfProblems.push(asked.failure);
      if (a.result === null && aaaa.result === null) return null;
      return addressesOf(a, 'A').length + addressesOf(aaaa, 'AAAA').length;
    },
    aCount: async (name) => {
      const asked = await ask(name, 'A');
      if (asked.failure) spfProblems.push(asked.failure);
      return asked.result === null ? null : addressesOf(asked, 'A').length;
    },
  };
  const [mxSection, spfSection] = await Promise.all([
    describeMx(domain, mx, ask),
    describeSpf(domain, txt, spfDns, spfProblems),
  ]);
  const report: MailReport = {
    domain,
    exists: true,
    problems: [],
    mx: mxSection,
    spf: spfSection,
    dmarc: describeDmarc(domain, dmarc),
    dkim: dkim === null || dkimName === null || selector === null ? null : describeDkim(selector, dkimName, dkim),
    mta_sts: describeMtaSts(mtaSts),
    tls_rpt: describeTlsRpt(tlsRpt),
  };
  if (timeSpent) {
    report.problems.push(
      `the check stopped waiting after its time limit of ${timeLimitMs} ms; sections whose lookups were still out say which`,
    );
  }
  if (budgetSpent) {
    report.problems.push(
      `the check stopped asking after ${MAX_QUERIES_PER_CHECK} DNS queries; sections that needed more say what was not asked`,
    );
  }
  return report;
}
